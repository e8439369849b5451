import { useController, type Control, type FieldPath, type FieldValues } from 'react-hook-form';
import { OutlinedField, type OutlinedFieldProps } from './outlined-field';

export interface TextInputProps<T extends FieldValues, TOut>
  extends Omit<OutlinedFieldProps, 'name' | 'value' | 'onChange' | 'onBlur' | 'inputRef' | 'error'> {
  control: Control<T, unknown, TOut>;
  name: FieldPath<T>;
}

/** The props that bind an OutlinedField (or PasswordField) to a react-hook-form field. */
export function useControlledField<T extends FieldValues, TOut>(control: Control<T, unknown, TOut>, name: FieldPath<T>) {
  const { field, fieldState } = useController({ control, name });
  return {
    name: field.name,
    value: (field.value as string | undefined) ?? '',
    onChange: field.onChange,
    onBlur: field.onBlur,
    inputRef: field.ref,
    error: fieldState.invalid ? (fieldState.error?.message ?? '') : undefined,
  } satisfies Partial<OutlinedFieldProps>;
}

/** An outlined text field bound to react-hook-form (the sign-in page uses OutlinedField instead). */
export function TextInput<T extends FieldValues, TOut>({ control, name, ...props }: TextInputProps<T, TOut>) {
  const bound = useControlledField(control, name);
  return <OutlinedField {...props} {...bound} />;
}
