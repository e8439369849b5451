import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import RefreshIcon from '@mui/icons-material/Refresh';
import FaceOutlinedIcon from '@mui/icons-material/FaceOutlined';
import PeopleOutlineIcon from '@mui/icons-material/GroupOutlined';
import { AdminMessages } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAvatarsUsers } from '../api/list-avatar-users';
import { useMyAvatars, type TMyAvatar } from '../api/list-my-avatars';
import { Empty, Failed, Fetching } from '../components/list-states';
import { OnlineUsersTable } from '../components/online-users-table';

/** /myonlineusers: who is talking to each of the signed-in account's avatars right now. */
export function MyOnlineUsersRoute() {
  useDocumentTitle('My Online Users');
  const avatars = useMyAvatars();
  const list = avatars.data ?? [];
  const perAvatar = useAvatarsUsers(list.map((avatar) => avatar.id));
  const isRefreshing = avatars.isFetching || perAvatar.some((q) => q.isFetching);
  const total = perAvatar.reduce((sum, q) => sum + (q.data?.length ?? 0), 0);
  const refresh = () => {
    void avatars.refetch();
    for (const query of perAvatar) void query.refetch();
  };
  return (
    <PageContainer>
      <PageHeader
        title="My Online Users"
        description="Visitors talking to your avatars right now, avatar by avatar."
        actions={
          <Tooltip title="Refresh">
            <span>
              <IconButton aria-label="Refresh" onClick={refresh} disabled={isRefreshing} sx={{ border: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
                <RefreshIcon />
              </IconButton>
            </span>
          </Tooltip>
        }
      />
      {avatars.isPending ? (
        <Paper variant="outlined">
          <Fetching label="Fetching your avatars…" />
        </Paper>
      ) : avatars.isError ? (
        <Failed title="Failed to fetch your avatars" hint={AdminMessages.onlineUsersHint} error={avatars.error} onRetry={() => void avatars.refetch()} />
      ) : list.length === 0 ? (
        <Paper variant="outlined">
          <Empty icon={<FaceOutlinedIcon />} title="You have no avatars yet">
            Create an avatar and embed it on your site; the people talking to it show up here.
          </Empty>
          <Box sx={{ textAlign: 'center', pb: 4 }}>
            <Button component={RouterLink} to={paths.avatars} variant="contained">
              Open Avatar Creator
            </Button>
          </Box>
        </Paper>
      ) : (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <Typography color="text.secondary" role="status">
            {total === 1 ? '1 person is' : `${total} people are`} online across {list.length === 1 ? 'your avatar' : `your ${list.length} avatars`}.
          </Typography>
          {list.map((avatar, index) => (
            <AvatarUsers key={avatar.id} avatar={avatar} query={perAvatar[index]!} />
          ))}
        </Box>
      )}
    </PageContainer>
  );
}

function AvatarUsers({ avatar, query }: { avatar: TMyAvatar; query: ReturnType<typeof useAvatarsUsers>[number] }) {
  return (
    <Paper variant="outlined" component="section" aria-label={`Online users of ${avatar.name}`} sx={{ overflow: 'hidden' }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider', bgcolor: 'rgba(79, 70, 229, 0.03)' }}>
        <Typography variant="h5" component="h2" sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
          {avatar.name}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ display: { xs: 'none', sm: 'block' } }}>
          ID {avatar.id}
        </Typography>
        {query.data ? <Chip size="small" color={query.data.length > 0 ? 'success' : 'default'} variant="outlined" label={`${query.data.length} online`} /> : null}
      </Box>
      {query.isPending ? (
        <Fetching label="Fetching online users…" />
      ) : query.isError ? (
        <Box sx={{ p: 2 }}>
          <Failed title={AdminMessages.onlineUsersLoadFailed} hint={AdminMessages.onlineUsersHint} error={query.error} onRetry={() => void query.refetch()} />
        </Box>
      ) : query.data.length === 0 ? (
        <Box sx={{ px: 2, py: 2.5, display: 'flex', alignItems: 'center', gap: 1.5, color: 'text.secondary' }}>
          <PeopleOutlineIcon fontSize="small" />
          <Typography variant="body2">Nobody is talking to this avatar right now.</Typography>
        </Box>
      ) : (
        <OnlineUsersTable users={query.data} label={`Online users of ${avatar.name}`} isDetailed />
      )}
    </Paper>
  );
}
