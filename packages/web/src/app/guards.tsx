import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../lib/auth-store';
import { homePathFor, paths, type LoginLocationState } from '../lib/paths';

/** Signed-out visitors go to /login, which brings them back here after signing in. */
export function RequireAuth({ children }: { children?: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    const state: LoginLocationState = {
      from: { pathname: location.pathname, search: location.search, hash: location.hash },
    };
    return <Navigate to={paths.login} replace state={state} />;
  }
  return children ?? <Outlet />;
}

/** `/`: signed out to /login; administrators to /onlineusers; everybody else to /avatars. */
export function HomeRedirect() {
  const session = useSession();
  return <Navigate to={homePathFor(session)} replace />;
}
