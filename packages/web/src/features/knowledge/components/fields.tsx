import { Controller, type Control, type FieldPath, type FieldValues } from 'react-hook-form';
import TextField from '@mui/material/TextField';

/** A text field (optionally multi-line) bound to react-hook-form, showing the contract's messages. */
export function FormTextField<T extends FieldValues>({
  control,
  name,
  label,
  multiline,
  minRows,
  maxRows,
  placeholder,
  disabled,
  onFocus,
  autoFocus,
}: {
  control: Control<T>;
  name: FieldPath<T>;
  label: string;
  multiline?: boolean;
  minRows?: number;
  maxRows?: number;
  placeholder?: string;
  disabled?: boolean;
  onFocus?: () => void;
  autoFocus?: boolean;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          value={field.value ?? ''}
          label={label}
          fullWidth
          multiline={multiline}
          minRows={minRows}
          maxRows={maxRows}
          placeholder={placeholder}
          disabled={disabled}
          autoFocus={autoFocus}
          onFocus={onFocus}
          error={fieldState.invalid}
          helperText={fieldState.error?.message}
          autoComplete="off"
        />
      )}
    />
  );
}
