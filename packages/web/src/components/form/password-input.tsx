import { useState } from 'react';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import type { FieldValues } from 'react-hook-form';
import { TextInput, type TextInputProps } from './text-input';

export type PasswordInputProps<T extends FieldValues, TOut> = Omit<TextInputProps<T, TOut>, 'type' | 'endAdornment'>;

/** A password field with a show/hide toggle. */
export function PasswordInput<T extends FieldValues, TOut>(props: PasswordInputProps<T, TOut>) {
  const [isVisible, setIsVisible] = useState(false);
  return (
    <TextInput
      {...props}
      type={isVisible ? 'text' : 'password'}
      endAdornment={
        <InputAdornment position="end">
          <IconButton
            aria-label={isVisible ? 'Hide password' : 'Show password'}
            onClick={() => setIsVisible((visible) => !visible)}
            onMouseDown={(event) => event.preventDefault()}
            edge="end"
            size="small"
          >
            {isVisible ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
          </IconButton>
        </InputAdornment>
      }
    />
  );
}
