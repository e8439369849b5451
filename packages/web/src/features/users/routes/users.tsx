import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import InputAdornment from '@mui/material/InputAdornment';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import PersonSearchIcon from '@mui/icons-material/PersonSearch';
import SearchIcon from '@mui/icons-material/Search';
import { AdminMessages, SubscriptionTypeName, type TAdminUser } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages, isApiError } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAdminUsers } from '../api/list-users';
import { useSetUserStatus } from '../api/set-user-status';
import { UserActions } from '../components/user-actions';
import { openLoginAs } from '../lib/open-login-as';
import { UserStatusChip, UserTypeChip } from '../components/user-chips';

const PAGE_SIZES = [25, 50, 100];
const SEARCH_DELAY_MS = 300;

function useDebounced<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
}

/** /users (admin): find accounts by name or e-mail, disable or enable them, sign in as them. */
export function UsersRoute() {
  useDocumentTitle('Users');
  const theme = useTheme();
  const isPhone = useMediaQuery(theme.breakpoints.down('md'));
  const [searchText, setSearchText] = useState('');
  const search = useDebounced(searchText.trim(), SEARCH_DELAY_MS);
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(PAGE_SIZES[0]!);
  const users = useAdminUsers({ search, limit: pageSize, offset: page * pageSize });
  const setStatus = useSetUserStatus();
  const [disabling, setDisabling] = useState<TAdminUser | null>(null);
  const [openingFor, setOpeningFor] = useState<number | null>(null);

  useEffect(() => setPage(0), [search]);

  const change = (user: TAdminUser, status: 'ACTIVE' | 'DISABLED') => {
    setStatus.mutate(
      { userId: user.id, status },
      {
        onSuccess: (updated) => {
          setDisabling(null);
          void showToast(`${updated.email} is ${status === 'ACTIVE' ? 'enabled' : 'disabled'}.`, 'success');
        },
        onError: (error) => {
          setDisabling(null);
          void showToast(errorMessages(error).join(' '), 'error');
        },
      },
    );
  };

  // Called from the click: the new tab must open inside it (pop-up rules).
  const signInAs = (user: TAdminUser) => {
    setOpeningFor(user.id);
    openLoginAs(user.id)
      .catch((error: unknown) => void showToast((isApiError(error) || !(error instanceof Error) ? errorMessages(error) : [error.message]).join(' '), 'error'))
      .finally(() => setOpeningFor(null));
  };

  const actionsFor = (user: TAdminUser) => (
    <UserActions
      user={user}
      isOpening={openingFor === user.id}
      onSignInAs={signInAs}
      isBusy={setStatus.isPending && setStatus.variables.userId === user.id}
      onDisable={setDisabling}
      onEnable={(u) => change(u, 'ACTIVE')}
    />
  );

  return (
    <PageContainer maxWidth="xl">
      <PageHeader title="Users" description="Every account of the portal. Disable one to stop its sign-ins, or sign in as a customer in a new tab to see what they see." />
      <Paper variant="outlined" sx={{ overflow: 'hidden', position: 'relative' }}>
        {users.isFetching && !users.isPending ? <LinearProgress sx={{ position: 'absolute', inset: '0 0 auto 0' }} aria-label="Refreshing" /> : null}
        <Box sx={{ p: { xs: 1.5, sm: 2 }, display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap', borderBottom: 1, borderColor: 'divider' }}>
          <TextField
            type="search"
            size="small"
            label="Search"
            placeholder="Name or e-mail"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            sx={{ flex: '1 1 260px', maxWidth: 480 }}
            slotProps={{
              htmlInput: { maxLength: 200 },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          {users.data ? (
            <Typography variant="body2" color="text.secondary" role="status">
              {users.data.total === 1 ? '1 account' : `${users.data.total} accounts`}
            </Typography>
          ) : null}
        </Box>
        {users.isPending ? (
          <Box role="status" sx={{ py: 6, display: 'grid', placeItems: 'center', gap: 1.5, color: 'text.secondary' }}>
            <CircularProgress size={30} aria-hidden />
            <Typography variant="body2">Fetching users…</Typography>
          </Box>
        ) : users.isError ? (
          <Box sx={{ p: 2 }}>
            <Alert
              severity="error"
              action={
                <Button color="inherit" size="small" onClick={() => void users.refetch()}>
                  Retry
                </Button>
              }
            >
              <AlertTitle>{AdminMessages.usersLoadFailed}</AlertTitle>
              {errorMessages(users.error).join(' ')}
            </Alert>
          </Box>
        ) : users.data.users.length === 0 ? (
          <Box sx={{ py: 7, px: 2, textAlign: 'center', display: 'grid', justifyItems: 'center', gap: 1, color: 'text.secondary' }}>
            <PersonSearchIcon sx={{ fontSize: 40, color: 'primary.main' }} />
            <Typography variant="h5" component="p" color="text.primary">
              No accounts found
            </Typography>
            <Typography>{search ? `Nobody's name or e-mail contains “${search}”.` : 'There are no accounts yet.'}</Typography>
          </Box>
        ) : isPhone ? (
          <Box component="ul" aria-label="Users" sx={{ listStyle: 'none', m: 0, p: 1.5, display: 'grid', gap: 1.5 }}>
            {users.data.users.map((user) => (
              <Paper component="li" key={user.id} variant="outlined" aria-label={user.email} sx={{ p: 2, display: 'grid', gap: 1 }}>
                <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
                  <Box sx={{ flex: 1, minWidth: 0 }}>
                    <Typography sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>{user.name || '—'}</Typography>
                    <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                      {user.email}
                    </Typography>
                  </Box>
                  <UserStatusChip status={user.status} />
                </Box>
                <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', color: 'text.secondary' }}>
                  <UserTypeChip userType={user.userType} />
                  <Typography variant="body2">
                    Plan <strong>{SubscriptionTypeName[user.subscriptionType]}</strong>
                  </Typography>
                  <Typography variant="body2">· ID {user.id}</Typography>
                  {user.companyName ? <Typography variant="body2">· {user.companyName}</Typography> : null}
                </Box>
                {actionsFor(user)}
              </Paper>
            ))}
          </Box>
        ) : (
          <TableContainer>
            <Table aria-label="Users" sx={{ '& th': { fontWeight: 700, whiteSpace: 'nowrap' } }}>
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Email</TableCell>
                  <TableCell>Type</TableCell>
                  <TableCell>Plan</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>Created</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {users.data.users.map((user) => (
                  <TableRow key={user.id} hover aria-label={user.email}>
                    <TableCell>
                      <Typography sx={{ fontWeight: 600 }}>{user.name || '—'}</Typography>
                      <Typography variant="body2" color="text.secondary">
                        {user.companyName ? `${user.companyName} · ` : ''}ID {user.id}
                      </Typography>
                    </TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>{user.email}</TableCell>
                    <TableCell>
                      <UserTypeChip userType={user.userType} />
                    </TableCell>
                    <TableCell sx={{ fontWeight: 600 }}>{SubscriptionTypeName[user.subscriptionType]}</TableCell>
                    <TableCell>
                      <UserStatusChip status={user.status} />
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap', color: 'text.secondary' }}>{formatDateTime(user.created)}</TableCell>
                    <TableCell align="right">{actionsFor(user)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
        {users.data && users.data.total > 0 ? (
          <TablePagination
            component="div"
            count={users.data.total}
            page={page}
            onPageChange={(_e, next) => setPage(next)}
            rowsPerPage={pageSize}
            rowsPerPageOptions={PAGE_SIZES}
            onRowsPerPageChange={(e) => {
              setPageSize(Number(e.target.value));
              setPage(0);
            }}
            labelRowsPerPage={isPhone ? 'Rows' : 'Rows per page'}
            sx={{ borderTop: 1, borderColor: 'divider' }}
          />
        ) : null}
      </Paper>
      <ConfirmDialog
        open={disabling !== null}
        title="Disable account?"
        confirmLabel="Disable"
        cancelLabel="Cancel"
        tone="error"
        isBusy={setStatus.isPending}
        onConfirm={() => disabling && change(disabling, 'DISABLED')}
        onCancel={() => setDisabling(null)}
      >
        {disabling?.name || disabling?.email} ({disabling?.email}) will not be able to sign in until you enable the account again.
      </ConfirmDialog>
    </PageContainer>
  );
}
