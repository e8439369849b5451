import { useCallback, useState, type ChangeEvent, type FormEvent } from 'react';
import { safeParse, type core } from 'zod/mini';

/** The first error message of each field that has one. */
export type FieldErrors<TValues> = Partial<Record<keyof TValues & string, string>>;

/** The keys of TValues whose values are strings (the ones a text field can edit). */
export type StringFieldName<TValues> = {
  [K in keyof TValues & string]-?: TValues[K] extends string ? K : never;
}[keyof TValues & string];

interface FormState<TValues> {
  values: TValues;
  errors: FieldErrors<TValues>;
  isSubmitted: boolean;
}

type FlatSchema = core.$ZodType<unknown, Record<string, unknown>>;

/** The first issue per top-level field (the schema's order), like react-hook-form's zodResolver. */
function firstErrors<TValues>(issues: readonly core.$ZodIssue[]): FieldErrors<TValues> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const name = String(issue.path[0] ?? '');
    if (!(name in errors)) errors[name] = issue.message;
  }
  return errors as FieldErrors<TValues>;
}

type Validation<TSchema extends FlatSchema> =
  | { success: true; data: core.output<TSchema>; errors: FieldErrors<core.input<TSchema>> }
  | { success: false; errors: FieldErrors<core.input<TSchema>> };

function validate<TSchema extends FlatSchema>(schema: TSchema, values: core.input<TSchema>): Validation<TSchema> {
  const result = safeParse(schema, values);
  return result.success
    ? { success: true, data: result.data, errors: {} }
    : { success: false, errors: firstErrors<core.input<TSchema>>(result.error.issues) };
}

/**
 * A small form state for a flat object schema, for the sign-in page, which stays free of
 * react-hook-form to keep it small (every other form uses react-hook-form with zodResolver).
 *
 * Behaves like react-hook-form's defaults (mode onSubmit, reValidateMode onChange): nothing is
 * validated until the first submit; submitting validates every field, shows the first message of
 * each invalid field and focuses the first invalid input (found by name in the submitted form);
 * after that a field is validated again whenever it changes. `onValid` receives the parsed output
 * (trimmed, defaulted) of the schema.
 */
export function useSchemaForm<TSchema extends FlatSchema>(schema: TSchema, defaultValues: core.input<TSchema>) {
  type TValues = core.input<TSchema>;
  const [state, setState] = useState<FormState<TValues>>(() => ({ values: defaultValues, errors: {}, isSubmitted: false }));

  const setValue = useCallback(
    <K extends keyof TValues & string>(name: K, value: TValues[K]) => {
      setState((previous) => {
        const values = { ...previous.values, [name]: value };
        if (!previous.isSubmitted) return { ...previous, values };
        const errors = { ...previous.errors };
        const error = validate(schema, values).errors[name];
        if (error === undefined) delete errors[name];
        else errors[name] = error;
        return { ...previous, values, errors };
      });
    },
    [schema],
  );

  /** The props of an OutlinedField or PasswordField editing the string field `name`. */
  const textField = <K extends StringFieldName<TValues>>(name: K) => ({
    name,
    value: state.values[name] as string,
    error: state.errors[name],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setValue(name, event.target.value as TValues[K]),
  });

  const handleSubmit = (onValid: (data: core.output<TSchema>) => void) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validate(schema, state.values);
    setState((previous) => ({ ...previous, errors: result.errors, isSubmitted: true }));
    if (result.success) {
      onValid(result.data);
      return;
    }
    const firstInvalid = Object.keys(state.values).find((name) => name in result.errors);
    const input = firstInvalid ? event.currentTarget.elements.namedItem(firstInvalid) : null;
    if (input instanceof HTMLElement) input.focus();
  };

  return { values: state.values, errors: state.errors, isSubmitted: state.isSubmitted, setValue, textField, handleSubmit };
}
