import { useState } from 'react';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Tooltip from '@mui/material/Tooltip';
import RefreshIcon from '@mui/icons-material/Refresh';
import PeopleOutlineIcon from '@mui/icons-material/GroupOutlined';
import { AdminMessages } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useOnlineUsers } from '../api/list-online-users';
import { Empty, Failed, Fetching } from '../components/list-states';
import { OnlineUserDialog } from '../components/online-user-dialog';
import { OnlineUsersTable } from '../components/online-users-table';

/** /onlineusers (admin): everyone talking to an avatar right now. */
export function OnlineUsersRoute() {
  useDocumentTitle('Online Users');
  const users = useOnlineUsers();
  const [openSession, setOpenSession] = useState<string | null>(null);
  return (
    <PageContainer>
      <PageHeader
        title="Online Users"
        description="Everyone talking to an avatar right now. Open a session to see its device, language and avatar."
        actions={
          <Tooltip title="Refresh">
            <span>
              <IconButton aria-label="Refresh" onClick={() => void users.refetch()} disabled={users.isFetching} sx={{ border: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
                <RefreshIcon />
              </IconButton>
            </span>
          </Tooltip>
        }
      />
      <Paper variant="outlined" sx={{ overflow: 'hidden', position: 'relative' }}>
        {users.isFetching && !users.isPending ? <LinearProgress sx={{ position: 'absolute', inset: '0 0 auto 0' }} aria-label="Refreshing" /> : null}
        {users.isPending ? (
          <Fetching label="Fetching online users…" />
        ) : users.isError ? (
          <Box sx={{ p: 2 }}>
            <Failed title={AdminMessages.onlineUsersLoadFailed} hint={AdminMessages.onlineUsersHint} error={users.error} onRetry={() => void users.refetch()} />
          </Box>
        ) : users.data.length === 0 ? (
          <Empty icon={<PeopleOutlineIcon />} title="No one is online right now">
            Sessions appear here while visitors talk to an avatar. Press refresh to check again.
          </Empty>
        ) : (
          <>
            <Box sx={{ px: 2, pt: 2, pb: 1 }}>
              <Chip size="small" color="success" variant="outlined" label={`${users.data.length} online`} />
            </Box>
            <OnlineUsersTable users={users.data} label="Online users" onOpen={(user) => setOpenSession(user.sessionId)} />
          </>
        )}
      </Paper>
      <OnlineUserDialog sessionId={openSession} onClose={() => setOpenSession(null)} />
    </PageContainer>
  );
}
