import { useParams } from 'react-router';
import CircularProgress from '@mui/material/CircularProgress';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlined';
import { AuthMessages } from '@persona/contract';
import { AuthCard } from '../../../components/auth-card';
import { IconBadge } from '../../../components/icon-badge';
import { errorMessages } from '../../../lib/api-client';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useVerifyEmail, verificationFailure } from '../api/verify-email';
import { BackToSignInButton } from '../components/back-to-sign-in';
import { Column } from '../../../components/column';

export function EmailVerificationRoute() {
  useDocumentTitle('Email verification');
  const { code = '' } = useParams();
  const verificationCode = code.trim();
  if (!verificationCode) return <VerificationFailed title="Verification Failed" message={AuthMessages.invalidVerificationCode} />;
  return <VerifyCode key={verificationCode} verificationCode={verificationCode} />;
}

function VerifyCode({ verificationCode }: { verificationCode: string }) {
  const verification = useVerifyEmail(verificationCode);

  if (verification.isPending) {
    return (
      <AuthCard title="Verifying your e-mail…" subtitle="Just one second.">
        <Column center>
          <CircularProgress aria-label="Verifying" />
        </Column>
      </AuthCard>
    );
  }
  if (verification.isError) {
    const failure = verificationFailure(verification.error);
    return (
      <VerificationFailed
        title={failure?.displayTitle || 'Verification Failed'}
        message={failure?.displayMessage || errorMessages(verification.error).join(' ')}
      />
    );
  }
  const { displayTitle, displayMessage } = verification.data;
  return (
    <AuthCard
      icon={
        <IconBadge tone="success">
          <CheckCircleOutlineIcon />
        </IconBadge>
      }
      title={displayTitle}
      subtitle={displayMessage}
    >
      <BackToSignInButton />
    </AuthCard>
  );
}

function VerificationFailed({ title, message }: { title: string; message: string }) {
  return (
    <AuthCard
      icon={
        <IconBadge tone="error">
          <ErrorOutlineIcon color="error" data-testid="verification-error-icon" />
        </IconBadge>
      }
      title={title}
      subtitle={message}
    >
      <BackToSignInButton />
    </AuthCard>
  );
}
