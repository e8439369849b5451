import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import RefreshIcon from '@mui/icons-material/Refresh';
import type { TVps } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { useVps } from '../api/get-vps';
import { VpsStatusChip } from './vps-status-chip';

const dash = (value: string | number | null) => (value === null || value === '' ? '—' : String(value));

const FIELDS: { label: string; value: (vps: TVps) => React.ReactNode }[] = [
  { label: 'ID', value: (v) => v.id },
  { label: 'VPS ID', value: (v) => v.vpsId },
  { label: 'Name', value: (v) => v.name },
  { label: 'VPS Name', value: (v) => v.vpsName },
  { label: 'Status', value: (v) => <VpsStatusChip status={v.status} /> },
  { label: 'Session ID', value: (v) => dash(v.sessionId) },
  { label: 'Address', value: (v) => dash(v.vpsAddress) },
  { label: 'Docker private IP', value: (v) => dash(v.dockerPrivateIp) },
  { label: 'Remote IP', value: (v) => dash(v.remoteIp) },
  { label: 'Assigned user ID', value: (v) => dash(v.assignedUserId) },
  { label: 'WebSocket', value: (v) => dash(v.webSocket) },
  { label: 'Created', value: (v) => formatDateTime(v.created) },
  { label: 'Last connected', value: (v) => formatDateTime(v.lastConnectTime, 'never') },
  { label: 'Last ping', value: (v) => formatDateTime(v.lastPingTime, 'never') },
  { label: 'Last used', value: (v) => formatDateTime(v.lastUsedTime, 'never') },
];

/** Every field of one server, with a refresh button. */
export function VpsDetailsDialog({ vpsId, onClose }: { vpsId: number | null; onClose: () => void }) {
  const vps = useVps(vpsId);
  return (
    <Dialog open={vpsId !== null} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="vps-details-title">
      <DialogTitle id="vps-details-title" sx={{ fontWeight: 700, display: 'flex', alignItems: 'center', gap: 1, pr: 1.5 }}>
        <Box component="span" sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
          VPS {vps.data?.name ?? vpsId}
        </Box>
        <Tooltip title="Refresh">
          <span>
            <IconButton aria-label="Refresh details" onClick={() => void vps.refetch()} disabled={vps.isFetching}>
              <RefreshIcon />
            </IconButton>
          </span>
        </Tooltip>
      </DialogTitle>
      {vps.isFetching && !vps.isPending ? <LinearProgress aria-label="Refreshing" /> : null}
      {/* Focusable: on a phone the details scroll, and a keyboard must reach them (WCAG 2.1.1). */}
      <DialogContent dividers tabIndex={0}>
        {vps.isPending ? (
          <Box role="status" sx={{ py: 5, display: 'grid', placeItems: 'center', gap: 1.5, color: 'text.secondary' }}>
            <CircularProgress size={28} aria-hidden />
            <Typography variant="body2">Fetching VPS details…</Typography>
          </Box>
        ) : vps.isError ? (
          <Alert severity="error">
            <AlertTitle>Failed to fetch VPS details</AlertTitle>
            {errorMessages(vps.error).join(' ')}
          </Alert>
        ) : (
          <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '170px 1fr' }, columnGap: 2 }}>
            {FIELDS.map(({ label, value }) => (
              <Box key={label} sx={{ display: 'contents' }}>
                <Typography component="dt" variant="body2" color="text.secondary" sx={{ fontWeight: 600, pt: { xs: 1, sm: 0.75 } }}>
                  {label}
                </Typography>
                <Typography component="dd" sx={{ m: 0, pb: { xs: 0.5, sm: 0.75 }, pt: { sm: 0.75 }, overflowWrap: 'anywhere', borderBottom: { xs: 1, sm: 0 }, borderColor: 'divider' }}>
                  {value(vps.data)}
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
