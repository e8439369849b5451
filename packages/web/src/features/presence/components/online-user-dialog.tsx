import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import RefreshIcon from '@mui/icons-material/Refresh';
import { AdminMessages, type TOnlineUserDetail } from '@persona/contract';
import { errorMessages, isApiError } from '../../../lib/api-client';
import { useOnlineUser } from '../api/get-online-user';
import { Fetching } from './list-states';
import { formatTimestamp } from './format';

const FIELDS: { key: keyof TOnlineUserDetail; label: string; format?: (value: TOnlineUserDetail[keyof TOnlineUserDetail]) => ReactNode }[] = [
  { key: 'userName', label: 'User Name' },
  { key: 'sessionId', label: 'Session ID' },
  { key: 'userId', label: 'User ID' },
  { key: 'onlineStatus', label: 'Online Status' },
  { key: 'deviceOS', label: 'Device OS' },
  { key: 'deviceId', label: 'Device ID' },
  { key: 'deviceCount', label: 'Device Count' },
  { key: 'locale', label: 'Locale' },
  { key: 'spokenLanguage', label: 'Spoken Language' },
  { key: 'ipAddress', label: 'IP Address' },
  { key: 'avatarIdAndType', label: 'Avatar ID and Type' },
  { key: 'lastConnectTimeStamp', label: 'Last Connected', format: (value) => formatTimestamp(value as number) },
];

export interface OnlineUserDialogProps {
  sessionId: string | null;
  onClose: () => void;
}

/** One session's details, with a refresh button (spec section 2, Online Users). */
export function OnlineUserDialog({ sessionId, onClose }: OnlineUserDialogProps) {
  const detail = useOnlineUser(sessionId);
  const isGone = detail.isError && isApiError(detail.error) && detail.error.status === 404;
  return (
    <Dialog open={sessionId !== null} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="online-user-title">
      <DialogTitle id="online-user-title" sx={{ fontWeight: 700, display: 'flex', alignItems: 'center', gap: 1, pr: 1.5 }}>
        <Box component="span" sx={{ flex: 1 }}>
          Online user
        </Box>
        <Tooltip title="Refresh">
          <span>
            <IconButton aria-label="Refresh details" onClick={() => void detail.refetch()} disabled={detail.isFetching}>
              <RefreshIcon />
            </IconButton>
          </span>
        </Tooltip>
      </DialogTitle>
      {detail.isFetching && !detail.isPending ? <LinearProgress aria-label="Refreshing" /> : null}
      {/* Focusable: on a phone the details scroll, and a keyboard must reach them (WCAG 2.1.1). */}
      <DialogContent dividers tabIndex={0}>
        {detail.isPending ? (
          <Fetching label="Fetching online user…" />
        ) : detail.isError ? (
          <Alert severity={isGone ? 'info' : 'error'}>
            <AlertTitle>{isGone ? AdminMessages.sessionNotFound : 'Failed to fetch online user'}</AlertTitle>
            {isGone ? `Session ${sessionId} has ended.` : `${AdminMessages.onlineUsersHint} ${errorMessages(detail.error).join(' ')}`}
          </Alert>
        ) : (
          <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '170px 1fr' }, columnGap: 2 }}>
            {FIELDS.map(({ key, label, format }) => (
              <Box key={key} sx={{ display: 'contents' }}>
                <Typography component="dt" variant="body2" color="text.secondary" sx={{ fontWeight: 600, pt: { xs: 1, sm: 0.75 } }}>
                  {label}
                </Typography>
                <Typography component="dd" sx={{ m: 0, pb: { xs: 0.5, sm: 0.75 }, pt: { sm: 0.75 }, overflowWrap: 'anywhere', borderBottom: { xs: 1, sm: 0 }, borderColor: 'divider' }}>
                  {format ? format(detail.data[key]) : String(detail.data[key] ?? '') || '—'}
                </Typography>
              </Box>
            ))}
          </Box>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 1.5 }}>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
