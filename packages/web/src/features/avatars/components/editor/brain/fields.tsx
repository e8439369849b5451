import { createContext, useContext, type ReactNode } from 'react';
import { Controller, type FieldPath } from 'react-hook-form';
import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { isMasked } from '@persona/contract';
import type { BrainValues } from '../../../lib/brain-form';
import { useEditorSession } from '../editor-session';
import type { BrainHelpKey } from './help';

/** Which field's help the info panel shows (set on focus or click anywhere in a field). */
export const BrainHelpContext = createContext<(key: BrainHelpKey) => void>(() => {});

/** A field's area: focusing or clicking it shows its help. */
export function HelpArea({ help, children, wide }: { help: BrainHelpKey; children: ReactNode; wide?: boolean }) {
  const show = useContext(BrainHelpContext);
  return (
    <Box onFocusCapture={() => show(help)} onClickCapture={() => show(help)} data-help={help} sx={wide ? { gridColumn: '1 / -1' } : undefined}>
      {children}
    </Box>
  );
}

export interface BrainTextProps {
  name: FieldPath<BrainValues>;
  label: string;
  help: BrainHelpKey;
  helperText?: ReactNode;
  /** A secret: masked once saved; the mask is kept unless replaced. */
  secret?: boolean;
  multiline?: boolean;
  wide?: boolean;
  options?: readonly { value: string; label: string }[];
  placeholder?: string;
  disabled?: boolean;
  onBlur?: (value: string) => void;
  onChange?: (value: string) => void;
  maxLength?: number;
}

/** A text (or select) field of the Brain form with its error and help. */
export function BrainText({ name, label, help, helperText, secret, multiline, wide, options, placeholder, disabled, onBlur, onChange, maxLength = 2000 }: BrainTextProps) {
  const { brainForm } = useEditorSession();
  return (
    <HelpArea help={help} wide={wide}>
      <Controller
        control={brainForm.control}
        name={name}
        render={({ field, fieldState }) => {
          const value = typeof field.value === 'string' || typeof field.value === 'number' ? String(field.value) : '';
          return (
            <TextField
              select={options !== undefined}
              label={label}
              value={value}
              onChange={(e) => {
                field.onChange(e.target.value);
                onChange?.(e.target.value);
              }}
              onFocus={(e) => {
                // A mask is replaced, not edited.
                if (secret && isMasked(value)) (e.target as HTMLInputElement).select?.();
              }}
              onBlur={() => {
                field.onBlur();
                onBlur?.(value);
              }}
              inputRef={field.ref}
              name={field.name}
              type={secret && value && !isMasked(value) ? 'password' : 'text'}
              error={fieldState.invalid}
              helperText={fieldState.error?.message ?? helperText}
              placeholder={placeholder}
              disabled={disabled}
              size="small"
              fullWidth
              multiline={multiline}
              minRows={multiline ? 3 : undefined}
              maxRows={multiline ? 12 : undefined}
              autoComplete={secret ? 'off' : undefined}
              slotProps={{
                htmlInput: { maxLength, spellCheck: secret ? false : undefined, 'data-secret': secret ? 'true' : undefined },
                select: options ? { displayEmpty: true } : undefined,
                inputLabel: options || placeholder ? { shrink: true } : undefined,
              }}
            >
              {options?.map((o) => (
                <MenuItem key={o.value} value={o.value}>
                  {o.label}
                </MenuItem>
              ))}
            </TextField>
          );
        }}
      />
    </HelpArea>
  );
}
