import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Tooltip from '@mui/material/Tooltip';
import BlockIcon from '@mui/icons-material/Block';
import LoginIcon from '@mui/icons-material/Login';
import TaskAltIcon from '@mui/icons-material/TaskAlt';
import { AdminMessages, type TAdminUser } from '@persona/contract';

export interface UserActionsProps {
  user: TAdminUser;
  isBusy: boolean;
  /** A sign-in as this user is being opened. */
  isOpening: boolean;
  /** Opens a new tab signed in as the user (admin login-as: a one-time ticket, never a URL). */
  onSignInAs: (user: TAdminUser) => void;
  onDisable: (user: TAdminUser) => void;
  onEnable: (user: TAdminUser) => void;
}

/** "Sign in as" (a new tab, session-only there) and Disable / Enable. */
export function UserActions({ user, isBusy, isOpening, onSignInAs, onDisable, onEnable }: UserActionsProps) {
  const canSignInAs = user.userType !== 'ADMIN' && user.status === 'ACTIVE';
  const signInAs = (
    <Button
      size="small"
      variant="outlined"
      startIcon={<LoginIcon />}
      onClick={() => onSignInAs(user)}
      disabled={!canSignInAs || isOpening}
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
      {user.isSelf ? (
        <Tooltip title={AdminMessages.cannotDisableSelf}>
          <span>
            <Button size="small" color="error" variant="outlined" startIcon={<BlockIcon />} disabled aria-label={`Disable ${user.email}: ${AdminMessages.cannotDisableSelf}`}>
              Disable
            </Button>
          </span>
        </Tooltip>
      ) : user.status === 'DISABLED' ? (
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
