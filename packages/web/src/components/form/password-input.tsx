import type { FieldValues } from 'react-hook-form';
import { PasswordField } from './password-field';
import { useControlledField, type TextInputProps } from './text-input';

export type PasswordInputProps<T extends FieldValues, TOut> = Omit<TextInputProps<T, TOut>, 'type' | 'endAdornment'>;

/** A password field with a show/hide toggle, bound to react-hook-form. */
export function PasswordInput<T extends FieldValues, TOut>({ control, name, ...props }: PasswordInputProps<T, TOut>) {
  const bound = useControlledField(control, name);
  return <PasswordField {...props} {...bound} />;
}
