import { useForm, Controller } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import { FunctionLimits, FunctionMessages, ZFunctionForm, type TFunctionForm } from '@persona/contract';
import { PythonEditor } from '../../../components/python-editor';
import { TextInput } from '../../../components/form/text-input';
import { errorMessages } from '../../../lib/api-client';
import type { FunctionHelpKey } from '../help';

export interface FunctionFormProps {
  formId: string;
  defaultValues: TFunctionForm;
  /** Saves; a rejection carries the server's messages, shown on their fields. */
  onSubmit: (values: TFunctionForm) => Promise<void>;
  onHelp: (key: FunctionHelpKey) => void;
}

const isNameMessage = (m: string) => m.startsWith('File Name') || m === FunctionMessages.nameRequired || m === FunctionMessages.nameTaken;
const isCodeMessage = (m: string) => m.startsWith('Syntax error') || m.startsWith('The code must') || m.startsWith('Code ') || m === FunctionMessages.codeRequired;

/** File Name and Code (python, 20 rows), validated with the contract schema the server uses too. */
export function FunctionForm({ formId, defaultValues, onSubmit, onHelp }: FunctionFormProps) {
  const form = useForm<TFunctionForm>({ resolver: zodResolver(ZFunctionForm), defaultValues, mode: 'onSubmit', reValidateMode: 'onChange' });
  const rootError = form.formState.errors.root?.message;

  const submit = form.handleSubmit(async (values) => {
    try {
      await onSubmit(values);
    } catch (error) {
      const messages = errorMessages(error);
      const other: string[] = [];
      for (const message of messages) {
        if (isNameMessage(message)) form.setError('name', { message });
        else if (isCodeMessage(message)) form.setError('code', { message });
        else other.push(message);
      }
      if (other.length > 0) form.setError('root', { message: other.join(' ') });
    }
  });

  return (
    <Box component="form" id={formId} noValidate onSubmit={submit} sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2.5 }}>
      <Box onFocusCapture={() => onHelp('name')}>
        <TextInput control={form.control} name="name" label="File Name" autoComplete="off" helperText="The function the avatar calls, e.g. get_weather" />
      </Box>
      <Controller
        control={form.control}
        name="code"
        render={({ field, fieldState }) => (
          <Box sx={{ minWidth: 0 }}>
            <FormLabel component="div" error={fieldState.invalid} sx={{ mb: 0.75, fontSize: 14 }}>
              Code
            </FormLabel>
            <PythonEditor
              label="Code"
              value={field.value}
              onChange={field.onChange}
              onFocus={() => onHelp('code')}
              rows={FunctionLimits.editorRows}
              hasError={fieldState.invalid}
            />
            {fieldState.error ? (
              <FormHelperText error role="alert">
                {fieldState.error.message}
              </FormHelperText>
            ) : null}
          </Box>
        )}
      />
      {rootError ? <Alert severity="error">{rootError}</Alert> : null}
    </Box>
  );
}
