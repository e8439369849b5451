import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import { AuthMessages, ZLoginForm, type TLoginForm } from '@persona/contract';
import { FailurePanel } from '../../../components/failure-panel';
import { PasswordInput } from '../../../components/form/password-input';
import { TextInput } from '../../../components/form/text-input';
import { gatewayErrorMessages } from '../../../lib/api-client';
import type { TAuthSession } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { useSignIn } from '../api/login';
import { Column } from '../../../components/column';
import { TextLink } from '../../../components/text-link';

export interface LoginFormProps {
  /** A failure to show before any attempt (a failed admin login-as). */
  initialErrors?: readonly string[];
  /** Called after the session is stored. */
  onSignedIn?: (session: TAuthSession) => void;
}

/** Email, Password, Remember me; the session is stored on success (the route then redirects). */
export function LoginForm({ initialErrors, onSignedIn }: LoginFormProps) {
  const signIn = useSignIn();
  const { control, handleSubmit } = useForm<TLoginForm>({
    resolver: zodResolver(ZLoginForm),
    defaultValues: { email: '', password: '', rememberMe: true },
  });

  const onSubmit = handleSubmit(({ email, password, rememberMe }) => {
    signIn.run({ request: { email, password }, isPersistent: rememberMe }, { onSuccess: onSignedIn });
  });

  const errors = signIn.isError ? gatewayErrorMessages(signIn.error) : (initialErrors ?? []);

  return (
    <Box component="form" noValidate onSubmit={onSubmit} aria-label="Sign in">
      <Column>
        {errors.length > 0 ? <FailurePanel title={AuthMessages.signInFailedTitle} errors={errors} /> : null}
        <TextInput control={control} name="email" label="Email" type="email" autoComplete="email" inputMode="email" autoFocus />
        <PasswordInput control={control} name="password" label="Password" autoComplete="current-password" />
        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', mt: -1 }}>
          <Controller
            control={control}
            name="rememberMe"
            render={({ field }) => (
              <FormControlLabel
                label="Remember me"
                control={
                  <Checkbox
                    checked={field.value}
                    onChange={(event) => field.onChange(event.target.checked)}
                    onBlur={field.onBlur}
                    name={field.name}
                    slotProps={{ input: { ref: field.ref } }}
                    size="small"
                  />
                }
              />
            )}
          />
          <TextLink to={paths.forgotPassword}>
            Forgot password?
          </TextLink>
        </Box>
        <Button type="submit" variant="contained" size="large" fullWidth loading={signIn.isPending}>
          Sign In
        </Button>
      </Column>
    </Box>
  );
}
