import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { TOnlineUser } from '@persona/contract';
import { formatTimestamp } from './format';

export interface OnlineUsersTableProps {
  users: readonly TOnlineUser[];
  label: string;
  /** Makes each session id a button that opens its details. */
  onOpen?: (user: TOnlineUser) => void;
  /** Adds device, language and connect time (the owner's page, which has no details dialog). */
  isDetailed?: boolean;
}

/** The table of user name and session id (spec section 2, Online Users). */
export function OnlineUsersTable({ users, label, onOpen, isDetailed = false }: OnlineUsersTableProps) {
  return (
    <TableContainer sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={label} sx={{ '& th': { fontWeight: 700, whiteSpace: 'nowrap' }, '& td, & th': { py: 1.25 } }}>
        <TableHead>
          <TableRow>
            <TableCell>User Name</TableCell>
            <TableCell>Session ID</TableCell>
            {isDetailed ? (
              <>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>Device</TableCell>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>Language</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Connected</TableCell>
              </>
            ) : null}
          </TableRow>
        </TableHead>
        <TableBody>
          {users.map((user) => (
            <TableRow key={user.sessionId} hover>
              <TableCell sx={{ overflowWrap: 'anywhere' }}>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                  <Box component="span" aria-hidden sx={{ width: 8, height: 8, flex: 'none', borderRadius: '50%', bgcolor: user.onlineStatus.toLowerCase() === 'online' ? 'success.main' : 'warning.main' }} />
                  <Typography component="span" sx={{ fontWeight: 600 }}>
                    {user.userName || 'Anonymous visitor'}
                  </Typography>
                </Box>
              </TableCell>
              <TableCell sx={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: '0.8125rem', overflowWrap: 'anywhere' }}>
                {onOpen ? (
                  <Link component="button" type="button" onClick={() => onOpen(user)} sx={{ font: 'inherit', textAlign: 'left', overflowWrap: 'anywhere' }} aria-label={`Details of session ${user.sessionId}`}>
                    {user.sessionId}
                  </Link>
                ) : (
                  user.sessionId
                )}
              </TableCell>
              {isDetailed ? (
                <>
                  <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>{user.deviceOS || '—'}</TableCell>
                  <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                    {user.spokenLanguage ? <Chip size="small" variant="outlined" label={user.spokenLanguage} /> : '—'}
                  </TableCell>
                  <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>{formatTimestamp(user.lastConnectTimeStamp)}</TableCell>
                </>
              ) : null}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
