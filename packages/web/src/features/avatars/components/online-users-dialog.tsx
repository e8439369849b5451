import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useAvatarUsers } from '../api/list-avatar-users';

const SESSION_ID_CHARS = 20;
export const shortSessionId = (id: string) => (id.length > SESSION_ID_CHARS ? id.slice(0, SESSION_ID_CHARS) : id);

function formatTime(value: string | number): string {
  const date = new Date(typeof value === 'number' ? value : Number.isNaN(Number(value)) ? value : Number(value));
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

export function OnlineUsersDialog({ avatar, onClose }: { avatar: { id: number; name: string } | null; onClose: () => void }) {
  const users = useAvatarUsers(avatar?.id ?? 0, avatar !== null);
  return (
    <Dialog open={avatar !== null} onClose={onClose} maxWidth="md" fullWidth aria-labelledby="online-users-title">
      <DialogTitle id="online-users-title" sx={{ fontWeight: 700 }}>
        Online Users — {avatar?.name}
      </DialogTitle>
      <DialogContent>
        {users.isPending ? (
          <Box sx={{ py: 4, display: 'grid', placeItems: 'center' }}>
            <CircularProgress size={28} />
          </Box>
        ) : users.isError ? (
          <Alert severity="error">Failed to fetch online users. Please try again.</Alert>
        ) : users.data.length === 0 ? (
          <Typography color="text.secondary" sx={{ py: 3, textAlign: 'center' }}>
            Nobody is talking to this avatar right now.
          </Typography>
        ) : (
          <TableContainer>
            <Table size="small" aria-label="Online users">
              <TableHead>
                <TableRow sx={{ '& th': { fontWeight: 700 } }}>
                  <TableCell>Session</TableCell>
                  <TableCell>User</TableCell>
                  <TableCell>Device</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>Locale</TableCell>
                  <TableCell>Spoken language</TableCell>
                  <TableCell>IP address</TableCell>
                  <TableCell>Connected</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {users.data.map((u) => (
                  <TableRow key={u.sessionId}>
                    <TableCell sx={{ fontFamily: 'ui-monospace, monospace' }}>
                      <Tooltip title={u.sessionId}>
                        <span>{shortSessionId(u.sessionId)}</span>
                      </Tooltip>
                    </TableCell>
                    <TableCell>{u.userName}</TableCell>
                    <TableCell>{u.deviceOS}</TableCell>
                    <TableCell>{u.onlineStatus}</TableCell>
                    <TableCell>{u.locale}</TableCell>
                    <TableCell>{u.spokenLanguage}</TableCell>
                    <TableCell>{u.ipAddress}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatTime(u.lastConnectTimeStamp)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={() => void users.refetch()} disabled={users.isFetching}>
          Refresh
        </Button>
        <Button variant="contained" onClick={onClose}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
