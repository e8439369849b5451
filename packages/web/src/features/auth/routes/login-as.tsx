// /login-as is its own page module: the sign-in page (/login) does not download the handover.
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import CircularProgress from '@mui/material/CircularProgress';
import { AuthCard } from '../../../components/auth-card';
import { Column } from '../../../components/column';
import { LogoMark } from '../../../components/logo-mark';
import { gatewayErrorMessages } from '../../../lib/api-client';
import { isLoginAsHandover, LOGIN_AS_WAIT_MS, LoginAsMessage } from '../../../lib/login-as-handover';
import { homePathFor } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useSignIn } from '../api/login';
import { LoginForm } from '../components/login-form';

type Handover = { status: 'waiting' } | { status: 'signing-in'; email: string } | { status: 'failed'; errors: string[] };

/**
 * /login-as: the tab the Users page opened to sign an administrator in as a customer (spec: admin
 * login-as, session-only storage). It tells its opener it is ready, takes the one-time ticket the
 * opener posts back (from the opener and this origin only) and redeems it in the body of
 * POST /api/login. Nothing secret ever appears in an address.
 */
export function LoginAsRoute() {
  useDocumentTitle('Sign In');
  const signIn = useSignIn();
  const navigate = useNavigate();
  const { run } = signIn;
  const [handover, setHandover] = useState<Handover>(() =>
    window.opener ? { status: 'waiting' } : { status: 'failed', errors: [LoginAsMessages.noOpener] },
  );

  useEffect(() => {
    const opener = window.opener as Window | null;
    if (!opener) return;
    const origin = window.location.origin;
    const onMessage = (event: MessageEvent) => {
      if (event.source !== opener || event.origin !== origin || !isLoginAsHandover(event.data)) return;
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
      // This tab acts as the customer from now on: it keeps no handle on the administrator's tab.
      window.opener = null;
      const data = event.data;
      if (data.type === LoginAsMessage.failed) {
        setHandover({ status: 'failed', errors: data.errors });
        return;
      }
      setHandover({ status: 'signing-in', email: data.email });
      run({ request: { email: data.email, adminSessionId: data.ticket }, isPersistent: false }, { onSuccess: (session) => navigate(homePathFor(session), { replace: true }) });
    };
    const timer = setTimeout(() => {
      window.removeEventListener('message', onMessage);
      setHandover({ status: 'failed', errors: [LoginAsMessages.noTicket] });
    }, LOGIN_AS_WAIT_MS);
    window.addEventListener('message', onMessage);
    opener.postMessage({ type: LoginAsMessage.ready }, origin);
    return () => {
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
    };
  }, [run, navigate]);

  const errors = signIn.isError ? gatewayErrorMessages(signIn.error) : handover.status === 'failed' ? handover.errors : null;
  if (errors) {
    return (
      <AuthCard icon={<LogoMark size={48} />} title="Sign in">
        <LoginForm initialErrors={errors} onSignedIn={(session) => navigate(homePathFor(session), { replace: true })} />
      </AuthCard>
    );
  }
  return (
    <AuthCard
      icon={<LogoMark size={48} />}
      title="Signing in…"
      subtitle={handover.status === 'signing-in' ? `Opening the portal as ${handover.email}.` : 'Opening the portal for the administrator.'}
    >
      <Column center>
        <CircularProgress aria-label="Signing in" />
      </Column>
    </AuthCard>
  );
}

const LoginAsMessages = {
  noOpener: 'Open this page with "Sign in as" on the Users page of the portal.',
  noTicket: 'The Users page did not hand over the sign-in. Close this tab and use "Sign in as" again.',
} as const;
