import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import { AuthMessages, ZLoginForm } from '@persona/contract';
import { FailurePanel } from '../../../components/failure-panel';
import { OutlinedField } from '../../../components/form/outlined-field';
import { PasswordField } from '../../../components/form/password-field';
import { gatewayErrorMessages } from '../../../lib/api-client';
import type { TAuthSession } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { useSchemaForm } from '../../../lib/use-schema-form';
import { useSignIn } from '../api/login';
import { Column } from '../../../components/column';
import { TextLink } from '../../../components/text-link';

export interface LoginFormProps {
  /** A failure to show before any attempt (a failed admin login-as). */
  initialErrors?: readonly string[];
  /** Called after the session is stored. */
  onSignedIn?: (session: TAuthSession) => void;
}

/**
 * Email, Password, Remember me; the session is stored on success (the route then redirects).
 * Plain controlled inputs and useSchemaForm rather than react-hook-form: the sign-in page must stay small.
 */
export function LoginForm({ initialErrors, onSignedIn }: LoginFormProps) {
  const signIn = useSignIn();
  const form = useSchemaForm(ZLoginForm, { email: '', password: '', rememberMe: true });

  const onSubmit = form.handleSubmit(({ email, password, rememberMe }) => {
    signIn.run({ request: { email, password }, isPersistent: rememberMe }, { onSuccess: onSignedIn });
  });

  const errors = signIn.isError ? gatewayErrorMessages(signIn.error) : (initialErrors ?? []);

  return (
    <Box component="form" noValidate onSubmit={onSubmit} aria-label="Sign in">
      <Column>
        {errors.length > 0 ? <FailurePanel title={AuthMessages.signInFailedTitle} errors={errors} /> : null}
        <OutlinedField {...form.textField('email')} label="Email" type="email" autoComplete="email" inputMode="email" autoFocus />
        <PasswordField {...form.textField('password')} label="Password" autoComplete="current-password" />
        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', mt: -1 }}>
          {/* A plain label around the checkbox: FormControlLabel would add ~1.5 KB to the sign-in page. */}
          <Box component="label" sx={{ display: 'inline-flex', alignItems: 'center', cursor: 'pointer', ml: -1.25, typography: 'body1' }}>
            <Checkbox
              name="rememberMe"
              checked={form.values.rememberMe}
              onChange={(event) => form.setValue('rememberMe', event.target.checked)}
              size="small"
            />
            Remember me
          </Box>
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
