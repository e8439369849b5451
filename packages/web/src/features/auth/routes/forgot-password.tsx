import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LockResetIcon from '@mui/icons-material/LockReset';
import MarkEmailReadOutlinedIcon from '@mui/icons-material/MarkEmailReadOutlined';
import { AuthMessages, ZForgotPasswordRequest, type TForgotPasswordRequest } from '@persona/contract';
import { AuthCard } from '../../../components/auth-card';
import { FailurePanel } from '../../../components/failure-panel';
import { TextInput } from '../../../components/form/text-input';
import { IconBadge } from '../../../components/icon-badge';
import { errorMessages } from '../../../lib/api-client';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useForgotPassword } from '../api/forgot-password';
import { BackToSignInButton } from '../components/back-to-sign-in';
import { Column } from '../../../components/column';
import { TextLink } from '../../../components/text-link';

export function ForgotPasswordRoute() {
  useDocumentTitle('Forgot password');
  const forgot = useForgotPassword();
  const { control, handleSubmit, getValues } = useForm<TForgotPasswordRequest>({
    resolver: zodResolver(ZForgotPasswordRequest),
    defaultValues: { email: '' },
  });

  if (forgot.isSuccess) {
    return (
      <AuthCard
        icon={
          <IconBadge tone="success">
            <MarkEmailReadOutlinedIcon />
          </IconBadge>
        }
        title="Email sent"
        subtitle={
          <>
            If an account exists for <strong>{getValues('email')}</strong>, we have sent a link to reset the password.
            The link is valid for one hour.
          </>
        }
      >
        <BackToSignInButton />
      </AuthCard>
    );
  }

  const onSubmit = handleSubmit((values) => forgot.mutate(values));

  return (
    <AuthCard
      icon={
        <IconBadge>
          <LockResetIcon />
        </IconBadge>
      }
      title="Forgot your password?"
      subtitle="Enter the e-mail address of your account and we will send you a link to choose a new password."
      footer={
        <TextLink to={paths.login}>
          Back to Sign In
        </TextLink>
      }
    >
      <Box component="form" noValidate onSubmit={onSubmit} aria-label="Forgot password">
        <Column>
          {forgot.isError ? (
            <FailurePanel title={AuthMessages.mailDeliveryFailedTitle} errors={errorMessages(forgot.error)} />
          ) : null}
          <TextInput control={control} name="email" label="Email" type="email" inputMode="email" autoComplete="email" autoFocus />
          <Button type="submit" variant="contained" size="large" fullWidth loading={forgot.isPending}>
            Send Reset Link
          </Button>
        </Column>
      </Box>
    </AuthCard>
  );
}
