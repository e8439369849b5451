import { useMemo, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import ForumOutlinedIcon from '@mui/icons-material/ForumOutlined';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import InsightsOutlinedIcon from '@mui/icons-material/InsightsOutlined';
import { ConversationLimits, ConversationMessages } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { showToast } from '../../../lib/toast';
import { useDeleteConversations } from '../api/delete-conversation';
import { ExportButtons } from '../components/export-buttons';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { isAdmin as isAdminSession, useSession } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAvatarNames } from '../api/list-avatar-names';
import { useConversations, type ConversationFilters } from '../api/list-conversations';
import { ConversationFiltersBar, rangeError } from '../components/conversation-filters';
import { ConversationsTable } from '../components/conversations-table';

const FILTER_KEYS = ['avatarId', 'from', 'to', 'outcome', 'hasErrors', 'q'] as const;

/** /conversations: the account's conversations (administrators: every account's), filtered by the URL. */
export function ConversationsRoute() {
  useDocumentTitle('Conversations');
  const isAdmin = isAdminSession(useSession());
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => {
    const f: ConversationFilters = {};
    for (const key of FILTER_KEYS) {
      const v = params.get(key);
      if (v) f[key] = v;
    }
    return f;
  }, [params]);
  const setFilters = (next: ConversationFilters) => {
    const p = new URLSearchParams();
    for (const key of FILTER_KEYS) if (next[key]) p.set(key, next[key]);
    setParams(p, { replace: true });
  };
  const avatars = useAvatarNames();
  const isRangeBad = rangeError(filters) !== null;
  const list = useConversations(isRangeBad ? { ...filters, from: undefined, to: undefined } : filters, isAdmin);
  const rows = list.data?.pages.flatMap((p) => p.conversations) ?? [];
  const avatarName = filters.avatarId ? avatars.data?.find((a) => String(a.id) === filters.avatarId)?.name : undefined;
  // Ticked rows (ADR 094): only those still listed count; an owner deletes their own account's only.
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const selected = rows.filter((r) => ticked.has(r.id)).map((r) => r.id);
  const removeMany = useDeleteConversations();
  const [isConfirming, setConfirming] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const tooMany = selected.length > ConversationLimits.deleteManyMax;
  const confirmDelete = () =>
    removeMany.mutate(selected, {
      onSuccess: () => {
        setConfirming(false);
        setTicked(new Set());
        void showToast(ConversationMessages.deletedMany(selected.length), 'success');
      },
      onError: (error) => setDeleteError(errorMessages(error).join(' ')),
    });

  return (
    <PageContainer maxWidth="xl">
      <PageHeader
        title="Conversations"
        description={
          isAdmin
            ? "Every account's conversations with its avatars: what was said, how each one ended and how fast the avatar answered."
            : avatarName
              ? `What visitors said to ${avatarName}, how each conversation ended and how fast it answered.`
              : 'What visitors said to your avatars, how each conversation ended and how fast the avatar answered.'
        }
        actions={
          isAdmin ? (
            <Button component={RouterLink} to={paths.analytics} variant="outlined" startIcon={<InsightsOutlinedIcon />}>
              Analytics
            </Button>
          ) : (
            <Box sx={{ display: 'flex', flexWrap: 'wrap', justifyContent: 'flex-end', gap: 1 }}>
              {selected.length > 0 ? (
                <Button
                  variant="outlined"
                  color="error"
                  startIcon={<DeleteOutlineIcon />}
                  onClick={() => {
                    setDeleteError(null);
                    setConfirming(true);
                  }}
                >
                  Delete selected ({selected.length})
                </Button>
              ) : null}
              <Button component={RouterLink} to={filters.avatarId ? `${paths.analytics}?avatarId=${filters.avatarId}` : paths.analytics} variant="outlined" startIcon={<InsightsOutlinedIcon />}>
                Analytics
              </Button>
              <Button component={RouterLink} to={paths.webhooks} variant="outlined">
                Webhooks
              </Button>
              <Button component={RouterLink} to={filters.avatarId ? `${paths.privacy}?avatarId=${filters.avatarId}` : paths.privacy} variant="outlined">
                Privacy
              </Button>
              <ExportButtons filters={isRangeBad ? { ...filters, from: undefined, to: undefined } : filters} />
            </Box>
          )
        }
      />
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <ConversationFiltersBar filters={filters} avatars={avatars.data ?? []} onChange={setFilters} />
        <Box sx={{ borderTop: 1, borderColor: 'divider' }}>
          {list.isPending ? (
            <Box role="status" aria-live="polite" sx={{ py: 6, display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1.5, color: 'text.secondary' }}>
              <CircularProgress size={30} aria-hidden />
              <Typography variant="body2">Fetching conversations…</Typography>
            </Box>
          ) : list.isError ? (
            <Alert
              severity="error"
              sx={{ m: 2 }}
              action={
                <Button color="inherit" size="small" onClick={() => void list.refetch()}>
                  Retry
                </Button>
              }
            >
              <AlertTitle>{ConversationMessages.listFailed}</AlertTitle>
              {errorMessages(list.error).join(' ')}
            </Alert>
          ) : rows.length === 0 ? (
            <Box sx={{ py: { xs: 5, sm: 7 }, px: 2, textAlign: 'center', display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1 }}>
              <Box sx={{ width: 56, height: 56, borderRadius: '50%', display: 'grid', placeItems: 'center', bgcolor: 'rgba(79, 70, 229, 0.08)', color: 'primary.main', mb: 1, '& svg': { fontSize: 30 } }}>
                <ForumOutlinedIcon />
              </Box>
              <Typography variant="h5" component="p">
                {Object.keys(filters).length > 0 ? 'No conversation matches these filters' : 'No conversations yet'}
              </Typography>
              <Typography color="text.secondary" sx={{ maxWidth: 440 }}>
                {Object.keys(filters).length > 0 ? 'Widen the dates or clear the filters.' : 'When visitors talk to your avatars, their conversations show up here.'}
              </Typography>
              {Object.keys(filters).length === 0 && !isAdmin ? (
                <Button component={RouterLink} to={paths.avatars} variant="contained" sx={{ mt: 1 }}>
                  Open Avatar Creator
                </Button>
              ) : null}
            </Box>
          ) : (
            <>
              <ConversationsTable conversations={rows} showAccount={isAdmin} selection={isAdmin ? undefined : { selected: ticked, onChange: setTicked }} search={filters.q} />
              <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, px: 2, py: 1.5, borderTop: 1, borderColor: 'divider' }}>
                <Typography variant="body2" color="text.secondary" role="status">
                  {rows.length === 1 ? '1 conversation' : `${rows.length} conversations`}
                  {list.hasNextPage ? ' shown' : ''}
                </Typography>
                {list.hasNextPage ? (
                  <Button variant="outlined" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                    {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
                  </Button>
                ) : null}
              </Box>
            </>
          )}
        </Box>
      </Paper>
      <ConfirmDialog
        open={isConfirming}
        title="Delete conversations"
        tone="error"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        isBusy={removeMany.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={confirmDelete}
        footer={deleteError || tooMany ? <Alert severity="error" sx={{ mt: 2 }}>{tooMany ? ConversationMessages.tooMany : deleteError}</Alert> : null}
      >
        {ConversationMessages.deleteManyConfirm(selected.length)}
      </ConfirmDialog>
    </PageContainer>
  );
}
