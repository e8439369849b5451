import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { WebhookLabels, WebhookMessages, type TWebhookDelivery, type TWebhookDeliveryStatus } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { showToast } from '../../../lib/toast';
import { useDeliveries } from '../api/list-deliveries';
import { useResendDelivery } from '../api/resend-delivery';

const statusColor: Record<TWebhookDeliveryStatus, 'default' | 'success' | 'error'> = { pending: 'default', delivered: 'success', failed: 'error' };
const fromSm = { display: { xs: 'none', sm: 'table-cell' } };

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—';
}

/** An endpoint's deliveries: event, status, the receiver's answer, time, attempts, the next retry; Resend. */
export function DeliveryLog({ endpointId }: { endpointId: number }) {
  const log = useDeliveries(endpointId);
  const resend = useResendDelivery();
  const onResend = (d: TWebhookDelivery) =>
    resend.mutate(d.id, {
      onSuccess: () => void showToast(WebhookMessages.resendQueued, 'success'),
      onError: (err) => void showToast(errorMessages(err).join(' '), 'error'),
    });

  if (log.isPending)
    return (
      <Box role="status" sx={{ py: 3, display: 'flex', justifyContent: 'center' }}>
        <CircularProgress size={24} aria-label="Fetching deliveries" />
      </Box>
    );
  if (log.isError) return <Alert severity="error">{errorMessages(log.error).join(' ')}</Alert>;
  if (log.data.length === 0)
    return (
      <Typography color="text.secondary" sx={{ py: 2, px: 2 }}>
        No deliveries yet. Send a test event, or wait for a conversation.
      </Typography>
    );
  return (
    <TableContainer sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label="Deliveries" sx={{ '& th': { fontWeight: 700, whiteSpace: 'nowrap' } }}>
        <TableHead>
          <TableRow>
            <TableCell>Event</TableCell>
            <TableCell>Status</TableCell>
            <TableCell align="right">Response</TableCell>
            <TableCell sx={fromSm}>Time</TableCell>
            <TableCell align="right" sx={fromSm}>
              Attempts
            </TableCell>
            <TableCell sx={fromSm}>Next retry</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {log.data.map((d) => (
            <TableRow key={d.id}>
              <TableCell sx={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: '0.8125rem' }}>{d.type}</TableCell>
              <TableCell>
                <Tooltip title={d.lastError ?? ''}>
                  <Chip size="small" color={statusColor[d.status]} label={WebhookLabels.status[d.status]} />
                </Tooltip>
              </TableCell>
              <TableCell align="right">{d.responseStatus ?? (d.lastError ? 'No answer' : '—')}</TableCell>
              <TableCell sx={fromSm}>{when(d.lastAttemptAt ?? d.createdAt)}</TableCell>
              <TableCell align="right" sx={fromSm}>
                {d.attempts}
              </TableCell>
              <TableCell sx={fromSm}>{when(d.nextAttemptAt)}</TableCell>
              <TableCell align="right">
                <Button size="small" onClick={() => onResend(d)} aria-label={`Resend ${d.type} ${d.id}`}>
                  Resend
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
