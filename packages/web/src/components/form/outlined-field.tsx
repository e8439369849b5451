import { useId, type ChangeEventHandler, type FocusEventHandler, type ReactNode, type Ref } from 'react';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput from '@mui/material/OutlinedInput';

export interface OutlinedFieldProps {
  name: string;
  label: string;
  value: string;
  onChange: ChangeEventHandler<HTMLInputElement | HTMLTextAreaElement>;
  onBlur?: FocusEventHandler<HTMLInputElement | HTMLTextAreaElement>;
  inputRef?: Ref<HTMLInputElement>;
  /** The validation message; the field is shown invalid while it is set. */
  error?: string;
  type?: 'text' | 'email' | 'password' | 'tel';
  autoComplete?: string;
  autoFocus?: boolean;
  helperText?: ReactNode;
  endAdornment?: ReactNode;
  inputMode?: 'text' | 'email' | 'tel';
  disabled?: boolean;
}

/**
 * A controlled outlined text field, free of any form library (the sign-in page uses it directly;
 * TextInput binds it to react-hook-form). Built from the input parts rather than MUI's TextField,
 * which would pull Select (and its menu and popover) into the sign-in page.
 */
export function OutlinedField({
  name,
  label,
  value,
  onChange,
  onBlur,
  inputRef,
  error,
  type = 'text',
  autoComplete,
  autoFocus,
  helperText,
  endAdornment,
  inputMode,
  disabled,
}: OutlinedFieldProps) {
  const id = useId();
  const helperId = `${id}-helper`;
  const message = error ?? helperText;
  return (
    <FormControl fullWidth error={error !== undefined} disabled={disabled}>
      <InputLabel htmlFor={id}>{label}</InputLabel>
      <OutlinedInput
        id={id}
        label={label}
        type={type}
        name={name}
        value={value}
        onChange={onChange}
        onBlur={onBlur}
        inputRef={inputRef}
        autoComplete={autoComplete}
        autoFocus={autoFocus}
        endAdornment={endAdornment}
        inputProps={{ inputMode }}
        aria-describedby={message ? helperId : undefined}
      />
      {message ? <FormHelperText id={helperId}>{message}</FormHelperText> : null}
    </FormControl>
  );
}
