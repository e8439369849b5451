import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Tooltip from '@mui/material/Tooltip';
import BlockIcon from '@mui/icons-material/Block';
import LoginIcon from '@mui/icons-material/Login';
import TaskAltIcon from '@mui/icons-material/TaskAlt';
import type { TAdminUser } from '@persona/contract';
import { appBasePath } from '../../../lib/config';
import { paths } from '../../../lib/paths';

/** The portal's login page signing the administrator in as `email` (spec: admin login-as). */
export function signInAsUrl(adminToken: string, email: string): string {
  const base = appBasePath === '/' ? '' : appBasePath;
  return `${base}${paths.login}?adminSessionId=${encodeURIComponent(adminToken)}&email=${encodeURIComponent(email)}`;
}

export interface UserActionsProps {
  user: TAdminUser;
  adminToken: string;
  isBusy: boolean;
  onDisable: (user: TAdminUser) => void;
  onEnable: (user: TAdminUser) => void;
}

/** "Sign in as" (a new tab, session-only there) and Disable / Enable. */
export function UserActions({ user, adminToken, isBusy, onDisable, onEnable }: UserActionsProps) {
  const canSignInAs = user.userType !== 'ADMIN' && user.status === 'ACTIVE';
  const signInAs = (
    <Button
      size="small"
      variant="outlined"
      startIcon={<LoginIcon />}
      href={signInAsUrl(adminToken, user.email)}
      target="_blank"
      rel="noopener"
      disabled={!canSignInAs}
      aria-label={`Sign in as ${user.email}`}
      sx={{ whiteSpace: 'nowrap' }}
    >
      Sign in as
    </Button>
  );
  return (
    <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end', flexWrap: 'wrap' }}>
      {canSignInAs ? (
        signInAs
      ) : (
        <Tooltip title={user.userType === 'ADMIN' ? 'Not available for administrators' : 'Only active accounts can be signed in to'}>
          <span>{signInAs}</span>
        </Tooltip>
      )}
      {user.status === 'DISABLED' ? (
        <Button size="small" color="success" variant="contained" startIcon={<TaskAltIcon />} onClick={() => onEnable(user)} disabled={isBusy} aria-label={`Enable ${user.email}`}>
          Enable
        </Button>
      ) : (
        <Button size="small" color="error" variant="outlined" startIcon={<BlockIcon />} onClick={() => onDisable(user)} disabled={isBusy} aria-label={`Disable ${user.email}`}>
          Disable
        </Button>
      )}
    </Box>
  );
}
