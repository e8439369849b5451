import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import LogoutIcon from '@mui/icons-material/Logout';
import { AuthCard } from '../../../components/auth-card';
import { IconBadge } from '../../../components/icon-badge';
import { authStore } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { signOut } from '../api/logout';
import { Column } from '../../../components/column';

/** /signout: calls logout, clears the local session whatever the answer, then says so. */
export function SignOutRoute() {
  useDocumentTitle('Sign Out');
  const [isDone, setIsDone] = useState(() => authStore.getSession() === null);
  const hasStarted = useRef(false);

  useEffect(() => {
    if (hasStarted.current) return;
    hasStarted.current = true;
    void signOut().finally(() => setIsDone(true));
  }, []);

  if (!isDone) {
    return (
      <AuthCard title="Signing out...">
        <Column center>
          <CircularProgress aria-label="Signing out" />
        </Column>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      icon={
        <IconBadge tone="neutral">
          <LogoutIcon />
        </IconBadge>
      }
      title="You have been logged out"
      subtitle="Thanks for using the portal. Sign in again whenever you are ready."
    >
      <Button component={RouterLink} to={paths.login} variant="contained" size="large" fullWidth>
        Login Again
      </Button>
    </AuthCard>
  );
}
