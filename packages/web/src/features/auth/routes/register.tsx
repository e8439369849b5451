import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import MarkEmailReadOutlinedIcon from '@mui/icons-material/MarkEmailReadOutlined';
import PersonOffOutlinedIcon from '@mui/icons-material/PersonOffOutlined';
import { AuthMessages, Limits, ZRegisterRequest, type TRegisterRequest } from '@persona/contract';
import type { z } from 'zod';
import { AuthCard } from '../../../components/auth-card';
import { FailurePanel } from '../../../components/failure-panel';
import { PasswordInput } from '../../../components/form/password-input';
import { TextInput } from '../../../components/form/text-input';
import { IconBadge } from '../../../components/icon-badge';
import { LogoMark } from '../../../components/logo-mark';
import { errorMessages } from '../../../lib/api-client';
import { usePublicConfig } from '../../../lib/config';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useRegister } from '../api/register';
import { BackToSignInButton } from '../components/back-to-sign-in';
import { Column } from '../../../components/column';
import { TextLink } from '../../../components/text-link';

type TRegisterOutput = z.output<typeof ZRegisterRequest>;

export function RegisterRoute() {
  useDocumentTitle('Register');
  const config = usePublicConfig();
  if (!config.allowRegistration) return <RegistrationUnavailable />;
  return <RegisterPage />;
}

function RegistrationUnavailable() {
  return (
    <AuthCard
      icon={
        <IconBadge tone="neutral">
          <PersonOffOutlinedIcon />
        </IconBadge>
      }
      title="Registration is not available"
      subtitle={AuthMessages.registrationDisabled}
    >
      <BackToSignInButton />
    </AuthCard>
  );
}

function RegisterPage() {
  const config = usePublicConfig();
  const registration = useRegister();
  const { control, handleSubmit, getValues } = useForm<TRegisterRequest, unknown, TRegisterOutput>({
    resolver: zodResolver(ZRegisterRequest),
    defaultValues: { firstName: '', lastName: '', companyName: '', mobileNumber: '', email: '', password: '' },
  });

  if (registration.isSuccess) {
    return (
      <AuthCard
        icon={
          <IconBadge tone="success">
            <MarkEmailReadOutlinedIcon />
          </IconBadge>
        }
        title="Verification email sent"
        subtitle={
          <>
            We sent a verification link to <strong>{getValues('email')}</strong>. Open it to activate your account, then
            sign in.
          </>
        }
      >
        <BackToSignInButton />
      </AuthCard>
    );
  }

  const onSubmit = handleSubmit((values) => registration.mutate(values));

  return (
    <AuthCard
      icon={<LogoMark size={48} />}
      title="Create your account"
      subtitle={`Start building conversational avatars with ${config.productName}.`}
      footer={
        <>
          Already have an account?{' '}
          <TextLink to={paths.login}>
            Sign in
          </TextLink>
        </>
      }
    >
      <Box component="form" noValidate onSubmit={onSubmit} aria-label="Register">
        <Column>
          {registration.isError ? (
            <FailurePanel title={AuthMessages.registrationFailedTitle} errors={errorMessages(registration.error)} />
          ) : null}
          <Box sx={{ display: 'grid', gap: 2.25, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
            <TextInput control={control} name="firstName" label="First Name" autoComplete="given-name" autoFocus />
            <TextInput control={control} name="lastName" label="Last Name" autoComplete="family-name" />
          </Box>
          <TextInput
            control={control}
            name="companyName"
            label="Company Name (optional)"
            autoComplete="organization"
          />
          <TextInput
            control={control}
            name="mobileNumber"
            label="Mobile number (optional)"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
          />
          <TextInput control={control} name="email" label="Email" type="email" inputMode="email" autoComplete="email" />
          <PasswordInput
            control={control}
            name="password"
            label="Password"
            autoComplete="new-password"
            helperText={`At least ${Limits.passwordMin} characters.`}
          />
          <Button type="submit" variant="contained" size="large" fullWidth loading={registration.isPending}>
            Register
          </Button>
          <Typography variant="caption" color="text.secondary" sx={{ textAlign: 'center' }}>
            We will e-mail you a link to verify your address before you can sign in.
          </Typography>
        </Column>
      </Box>
    </AuthCard>
  );
}
