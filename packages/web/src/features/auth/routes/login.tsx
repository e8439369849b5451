import { useEffect, useRef } from 'react';
import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import CircularProgress from '@mui/material/CircularProgress';
import { AuthCard } from '../../../components/auth-card';
import { LogoMark } from '../../../components/logo-mark';
import { gatewayErrorMessages } from '../../../lib/api-client';
import { useSession } from '../../../lib/auth-store';
import { usePublicConfig } from '../../../lib/config';
import { homePathFor, paths, rememberedPath } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useSignIn } from '../api/login';
import { LoginForm } from '../components/login-form';
import { Column } from '../../../components/column';
import { TextLink } from '../../../components/text-link';

export function LoginRoute() {
  const [searchParams] = useSearchParams();
  const adminSessionId = searchParams.get('adminSessionId');
  const email = searchParams.get('email');
  if (adminSessionId && email) return <AdminLoginAs adminSessionId={adminSessionId} email={email} />;
  return <SignInPage />;
}

function SignInPage() {
  useDocumentTitle('Sign In');
  const session = useSession();
  const location = useLocation();
  const config = usePublicConfig();
  if (session) return <Navigate to={rememberedPath(location.state) ?? homePathFor(session)} replace />;
  return (
    <AuthCard
      icon={<LogoMark size={48} />}
      title="Sign in"
      subtitle={`Welcome back to ${config.productName}.`}
      footer={
        config.allowRegistration ? (
          <>
            Don&apos;t have an account?{' '}
            <TextLink to={paths.register}>
              Register
            </TextLink>
          </>
        ) : null
      }
    >
      <LoginForm />
    </AuthCard>
  );
}

/** /login?adminSessionId=…&email=…: an administrator opens a user's portal (session-only storage). */
function AdminLoginAs({ adminSessionId, email }: { adminSessionId: string; email: string }) {
  useDocumentTitle('Sign In');
  const signIn = useSignIn();
  const navigate = useNavigate();
  const hasStarted = useRef(false);
  const { run } = signIn;

  useEffect(() => {
    if (hasStarted.current) return;
    hasStarted.current = true;
    run(
      { request: { email, adminSessionId }, isPersistent: false },
      { onSuccess: (session) => navigate(homePathFor(session), { replace: true }) },
    );
  }, [adminSessionId, email, run, navigate]);

  if (signIn.isError) {
    return (
      <AuthCard icon={<LogoMark size={48} />} title="Sign in">
        <LoginForm
          initialErrors={gatewayErrorMessages(signIn.error)}
          onSignedIn={(session) => navigate(homePathFor(session), { replace: true })}
        />
      </AuthCard>
    );
  }
  return (
    <AuthCard icon={<LogoMark size={48} />} title="Signing in…" subtitle={`Opening the portal as ${email}.`}>
      <Column center>
        <CircularProgress aria-label="Signing in" />
      </Column>
    </AuthCard>
  );
}
