import { Navigate, useLocation } from 'react-router';
import { AuthCard } from '../../../components/auth-card';
import { LogoMark } from '../../../components/logo-mark';
import { useSession } from '../../../lib/auth-store';
import { usePublicConfig } from '../../../lib/config';
import { homePathFor, paths, rememberedPath } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { LoginForm } from '../components/login-form';
import { TextLink } from '../../../components/text-link';

export function LoginRoute() {
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
