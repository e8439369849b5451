import { useCallback, useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DnsOutlinedIcon from '@mui/icons-material/DnsOutlined';
import RefreshIcon from '@mui/icons-material/Refresh';
import { AdminMessages, type TVps } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useVpsList } from '../api/list-vps';
import { DeleteVpsDialog } from '../components/delete-vps-dialog';
import { VpsDetailsDialog } from '../components/vps-details-dialog';
import { VpsStatusChip } from '../components/vps-status-chip';

interface RowActions {
  onOpen: (vps: TVps) => void;
  onDelete: (vps: TVps) => void;
}

/** /vpsstatus (admin): 'Connected VPS', the avatar servers (workers) and their state. */
export function VpsStatusRoute() {
  useDocumentTitle('VPS Status');
  const theme = useTheme();
  const isPhone = useMediaQuery(theme.breakpoints.down('sm'));
  const list = useVpsList();
  const [detailId, setDetailId] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<TVps | null>(null);
  const closeDelete = useCallback(() => setDeleting(null), []);
  const actions: RowActions = { onOpen: (vps) => setDetailId(vps.id), onDelete: setDeleting };
  const available = list.data?.filter((vps) => vps.status === 'AVAILABLE').length ?? 0;

  return (
    <PageContainer>
      <PageHeader
        title="VPS Status"
        description="The avatar servers (workers) registered with the portal. They ping every 10 seconds; one silent for 30 seconds turns DISCONNECTED."
        actions={
          <Tooltip title="Refresh">
            <span>
              <IconButton aria-label="Refresh" onClick={() => void list.refetch()} disabled={list.isFetching} sx={{ border: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
                <RefreshIcon />
              </IconButton>
            </span>
          </Tooltip>
        }
      />
      <Paper variant="outlined" component="section" aria-labelledby="connected-vps-title" sx={{ overflow: 'hidden', position: 'relative' }}>
        {list.isFetching && !list.isPending ? <LinearProgress sx={{ position: 'absolute', inset: '0 0 auto 0' }} aria-label="Refreshing" /> : null}
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: { xs: 2, sm: 2.5 }, py: 2, borderBottom: 1, borderColor: 'divider' }}>
          <Typography id="connected-vps-title" variant="h4" component="h2" sx={{ flex: 1 }}>
            Connected VPS
          </Typography>
          {list.data ? (
            <Typography variant="body2" color="text.secondary">
              {available} of {list.data.length} available
            </Typography>
          ) : null}
        </Box>
        {list.isPending ? (
          <Box role="status" sx={{ py: 6, display: 'grid', placeItems: 'center', gap: 1.5, color: 'text.secondary' }}>
            <CircularProgress size={30} aria-hidden />
            <Typography variant="body2">Fetching VPS list…</Typography>
          </Box>
        ) : list.isError ? (
          <Box sx={{ p: 2 }}>
            <Alert
              severity="error"
              action={
                <Button color="inherit" size="small" onClick={() => void list.refetch()}>
                  Retry
                </Button>
              }
            >
              <AlertTitle>{AdminMessages.vpsLoadFailed}</AlertTitle>
              <Typography variant="body2">{AdminMessages.onlineUsersHint}</Typography>
              <Typography variant="body2" sx={{ mt: 0.5, opacity: 0.8 }}>
                {errorMessages(list.error).join(' ')}
              </Typography>
            </Alert>
          </Box>
        ) : list.data.length === 0 ? (
          <Box sx={{ py: 7, px: 2, textAlign: 'center', color: 'text.secondary', display: 'grid', justifyItems: 'center', gap: 1 }}>
            <DnsOutlinedIcon sx={{ fontSize: 40, color: 'primary.main' }} />
            <Typography variant="h5" component="p" color="text.primary">
              No VPS connected
            </Typography>
            <Typography sx={{ maxWidth: 460 }}>
              Start one with <code>npm run worker -- --server &lt;portal URL&gt;</code> and the server&apos;s WORKER_SECRET; it appears here when it registers.
            </Typography>
          </Box>
        ) : isPhone ? (
          <VpsCards list={list.data} {...actions} />
        ) : (
          <VpsTable list={list.data} {...actions} />
        )}
      </Paper>
      <VpsDetailsDialog vpsId={detailId} onClose={() => setDetailId(null)} />
      <DeleteVpsDialog vps={deleting} onClose={closeDelete} />
    </PageContainer>
  );
}

function IdLink({ vps, onOpen }: { vps: TVps; onOpen: (vps: TVps) => void }) {
  return (
    <Link component="button" type="button" onClick={() => onOpen(vps)} sx={{ fontWeight: 700, fontSize: 'inherit' }} aria-label={`Details of VPS ${vps.id}`}>
      {vps.id}
    </Link>
  );
}

function DeleteButton({ vps, onDelete }: { vps: TVps; onDelete: (vps: TVps) => void }) {
  return (
    <Tooltip title="Delete">
      <IconButton aria-label={`Delete VPS ${vps.id}`} color="error" onClick={() => onDelete(vps)}>
        <DeleteOutlineIcon />
      </IconButton>
    </Tooltip>
  );
}

function VpsTable({ list, onOpen, onDelete }: { list: TVps[] } & RowActions) {
  return (
    <TableContainer>
      <Table aria-label="Connected VPS" sx={{ '& th': { fontWeight: 700 } }}>
        <TableHead>
          <TableRow>
            <TableCell sx={{ width: 90 }}>ID</TableCell>
            <TableCell>Name</TableCell>
            <TableCell>Status</TableCell>
            <TableCell sx={{ display: { sm: 'none', md: 'table-cell' } }}>Last ping</TableCell>
            <TableCell align="right" sx={{ width: 90 }}>
              Delete
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {list.map((vps) => (
            <TableRow key={vps.id} hover data-testid={`vps-row-${vps.id}`}>
              <TableCell>
                <IdLink vps={vps} onOpen={onOpen} />
              </TableCell>
              <TableCell>
                <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{vps.name}</Typography>
                <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                  {vps.vpsAddress || vps.remoteIp}
                </Typography>
              </TableCell>
              <TableCell>
                <VpsStatusChip status={vps.status} />
              </TableCell>
              <TableCell sx={{ display: { sm: 'none', md: 'table-cell' }, color: 'text.secondary', whiteSpace: 'nowrap' }}>{formatDateTime(vps.lastPingTime, 'never')}</TableCell>
              <TableCell align="right">
                <DeleteButton vps={vps} onDelete={onDelete} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** Below 760 px the table becomes cards. */
function VpsCards({ list, onOpen, onDelete }: { list: TVps[] } & RowActions) {
  return (
    <Box component="ul" aria-label="Connected VPS" sx={{ listStyle: 'none', m: 0, p: 1.5, display: 'grid', gap: 1.5 }}>
      {list.map((vps) => (
        <Paper component="li" key={vps.id} variant="outlined" data-testid={`vps-card-${vps.id}`} sx={{ p: 2, display: 'grid', gap: 1 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Typography variant="body2" color="text.secondary" sx={{ fontWeight: 600 }}>
              ID
            </Typography>
            <IdLink vps={vps} onOpen={onOpen} />
            <Box sx={{ flex: 1 }} />
            <VpsStatusChip status={vps.status} />
          </Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Box sx={{ flex: 1, minWidth: 0 }}>
              <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{vps.name}</Typography>
              <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                Last ping {formatDateTime(vps.lastPingTime, 'never')}
              </Typography>
            </Box>
            <DeleteButton vps={vps} onDelete={onDelete} />
          </Box>
        </Paper>
      ))}
    </Box>
  );
}
