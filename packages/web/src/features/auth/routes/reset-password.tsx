import { Link as RouterLink, useParams } from 'react-router';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlined';
import LockResetIcon from '@mui/icons-material/LockReset';
import { AuthMessages, Limits, ZResetPasswordForm } from '@persona/contract';
import type { z } from 'zod';
import { AuthCard } from '../../../components/auth-card';
import { FailurePanel } from '../../../components/failure-panel';
import { PasswordInput } from '../../../components/form/password-input';
import { IconBadge } from '../../../components/icon-badge';
import { gatewayErrorMessages } from '../../../lib/api-client';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useResetPassword, useResetTokenValidity } from '../api/reset-password';
import { BackToSignInButton } from '../components/back-to-sign-in';
import { Column } from '../../../components/column';
import { TextLink } from '../../../components/text-link';

type TResetPasswordForm = z.infer<typeof ZResetPasswordForm>;

/**
 * /reset-password/{code}: checking the token, then invalid or the form; the form leads to success
 * or back to the form with the errors (spec section 4).
 */
export function ResetPasswordRoute() {
  useDocumentTitle('Reset password');
  const { code = '' } = useParams();
  const resetToken = code.trim();
  if (!resetToken) return <InvalidCode errors={[AuthMessages.emptyResetCode]} />;
  return <ResetPasswordFlow key={resetToken} resetToken={resetToken} />;
}

function ResetPasswordFlow({ resetToken }: { resetToken: string }) {
  const reset = useResetPassword();
  const validity = useResetTokenValidity(resetToken, !reset.isSuccess);

  if (reset.isSuccess) {
    const email = reset.data.email ?? validity.data?.email ?? '';
    return (
      <AuthCard
        icon={
          <IconBadge tone="success">
            <CheckCircleOutlineIcon />
          </IconBadge>
        }
        title="Password reset"
      >
        <Column gap={3}>
          <Typography sx={{ textAlign: 'center' }}>
            Password has been reset for {email} successfully. Proceed with Login.
          </Typography>
          <BackToSignInButton />
        </Column>
      </AuthCard>
    );
  }
  if (validity.isPending) {
    return (
      <AuthCard title="Just one second..." subtitle="Checking password reset token validity">
        <Column center>
          <CircularProgress aria-label="Checking" />
        </Column>
      </AuthCard>
    );
  }
  if (validity.isError) return <InvalidCode errors={gatewayErrorMessages(validity.error)} />;

  return (
    <ResetPasswordForm
      email={validity.data.email ?? ''}
      isPending={reset.isPending}
      errors={reset.isError ? gatewayErrorMessages(reset.error) : []}
      onSubmit={(newPassword) => reset.mutate({ resetToken, newPassword })}
    />
  );
}

interface ResetPasswordFormProps {
  email: string;
  isPending: boolean;
  errors: readonly string[];
  onSubmit: (newPassword: string) => void;
}

function ResetPasswordForm({ email, isPending, errors, onSubmit }: ResetPasswordFormProps) {
  const { control, handleSubmit } = useForm<TResetPasswordForm>({
    resolver: zodResolver(ZResetPasswordForm),
    defaultValues: { newPassword: '' },
  });
  return (
    <AuthCard
      icon={
        <IconBadge>
          <LockResetIcon />
        </IconBadge>
      }
      title="Reset Password"
      subtitle={email ? <>Choose a new password for <strong>{email}</strong>.</> : 'Choose a new password.'}
      footer={
        <TextLink to={paths.login}>
          Back to Sign In
        </TextLink>
      }
    >
      <Box
        component="form"
        noValidate
        aria-label="Reset password"
        onSubmit={handleSubmit(({ newPassword }) => onSubmit(newPassword))}
      >
        <Column>
          {errors.length > 0 ? <FailurePanel title="Password reset failed" errors={errors} /> : null}
          <PasswordInput
            control={control}
            name="newPassword"
            label="New Password"
            autoComplete="new-password"
            autoFocus
            helperText={`At least ${Limits.passwordMin} characters.`}
          />
          <Button type="submit" variant="contained" size="large" fullWidth loading={isPending}>
            Reset Password
          </Button>
        </Column>
      </Box>
    </AuthCard>
  );
}

function InvalidCode({ errors }: { errors: readonly string[] }) {
  return (
    <AuthCard
      icon={
        <IconBadge tone="error">
          <ErrorOutlineIcon />
        </IconBadge>
      }
      title="Invalid Code"
    >
      <Column gap={2.5}>
        <Box component="ul" sx={{ m: 0, pl: 0, listStyle: 'none', textAlign: 'center', color: 'error.main' }} aria-label="Errors">
          {errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </Box>
        <Button component={RouterLink} to={paths.forgotPassword} variant="contained" size="large" fullWidth>
          Send Email Again
        </Button>
        <Box sx={{ textAlign: 'center' }}>
          <TextLink to={paths.login}>
            Back to Sign In
          </TextLink>
        </Box>
      </Column>
    </AuthCard>
  );
}
