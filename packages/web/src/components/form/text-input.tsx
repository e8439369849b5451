import { useId, type ReactNode } from 'react';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput from '@mui/material/OutlinedInput';
import { useController, type Control, type FieldPath, type FieldValues } from 'react-hook-form';

export interface TextInputProps<T extends FieldValues, TOut> {
  control: Control<T, unknown, TOut>;
  name: FieldPath<T>;
  label: string;
  type?: 'text' | 'email' | 'password' | 'tel';
  autoComplete?: string;
  autoFocus?: boolean;
  helperText?: ReactNode;
  endAdornment?: ReactNode;
  inputMode?: 'text' | 'email' | 'tel';
  disabled?: boolean;
}

/**
 * An outlined text field bound to react-hook-form. Built from the input parts rather than
 * MUI's TextField, which would pull Select (and its menu and popover) into the sign-in page.
 */
export function TextInput<T extends FieldValues, TOut>({
  control,
  name,
  label,
  type = 'text',
  autoComplete,
  autoFocus,
  helperText,
  endAdornment,
  inputMode,
  disabled,
}: TextInputProps<T, TOut>) {
  const { field, fieldState } = useController({ control, name });
  const id = useId();
  const helperId = `${id}-helper`;
  const message = fieldState.error?.message ?? helperText;
  return (
    <FormControl fullWidth error={fieldState.invalid} disabled={disabled}>
      <InputLabel htmlFor={id}>{label}</InputLabel>
      <OutlinedInput
        id={id}
        label={label}
        type={type}
        name={field.name}
        value={(field.value as string | undefined) ?? ''}
        onChange={field.onChange}
        onBlur={field.onBlur}
        inputRef={field.ref}
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
