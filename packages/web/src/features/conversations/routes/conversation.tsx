import { useState } from 'react';
import { Link as RouterLink, useNavigate, useParams, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import PersonOffOutlinedIcon from '@mui/icons-material/PersonOffOutlined';
import { ConversationMessages, PrivacyMessages, ZConversationId, ZConversationSearch } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { isAdmin as isAdminSession, useSession } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useConversation } from '../api/get-conversation';
import { useDeleteConversation } from '../api/delete-conversation';
import { useEraseVisitor } from '../api/erase-visitor';
import { ConversationFacts, Transcript } from '../components/transcript';
import { formatStart } from '../components/format';
import { ExportButtons } from '../components/export-buttons';
import { SessionSummary } from '../components/session-summary';

/** /conversations/:id: one conversation's facts and transcript; its owner may delete it. */
export function ConversationRoute() {
  useDocumentTitle('Conversation');
  const { id = '' } = useParams();
  const isValid = ZConversationId.safeParse(id).success;
  return isValid ? <ConversationPage id={id} /> : <Missing />;
}

function Missing() {
  return (
    <PageContainer>
      <BackLink />
      <Alert severity="warning">{ConversationMessages.notFound}</Alert>
    </PageContainer>
  );
}

function BackLink({ search }: { search?: string }) {
  return (
    <Button component={RouterLink} to={search ? `${paths.conversations}?q=${encodeURIComponent(search)}` : paths.conversations} startIcon={<ArrowBackIcon />} color="inherit" size="small" sx={{ mb: 1.5, ml: -1 }}>
      All conversations
    </Button>
  );
}

function ConversationPage({ id }: { id: string }) {
  const isAdmin = isAdminSession(useSession());
  // The list's search (ADR 098), from the URL: the turns holding its words are marked.
  const [params] = useSearchParams();
  const parsed = ZConversationSearch.safeParse(params.get('q') ?? '');
  const search = parsed.success ? parsed.data : undefined;
  const query = useConversation(id, isAdmin, search);
  const remove = useDeleteConversation();
  const navigate = useNavigate();
  const [isConfirming, setConfirming] = useState(false);
  const erase = useEraseVisitor();
  const [isErasing, setErasing] = useState(false);
  const c = query.data;

  const confirmErase = () => {
    if (!c) return;
    erase.mutate(c.visitor, {
      onSuccess: (done) => {
        setErasing(false);
        void showToast(PrivacyMessages.erased(done.sessions, done.memories), 'success');
        void navigate(paths.conversations);
      },
    });
  };

  const confirmDelete = () =>
    remove.mutate(id, {
      onSuccess: () => {
        setConfirming(false);
        void showToast(ConversationMessages.deleted, 'success');
        void navigate(paths.conversations);
      },
    });

  return (
    <PageContainer maxWidth="xl">
      <BackLink search={search} />
      <PageHeader
        title={c ? `Conversation with ${c.avatarName}` : 'Conversation'}
        description={c ? `Started ${formatStart(c.startedAt)}.` : undefined}
        actions={
          c && (!isAdmin || c.canDelete) ? (
            <Box sx={{ display: 'flex', flexWrap: 'wrap', justifyContent: 'flex-end', gap: 1 }}>
              {/* The export is the caller's account's (administrators: their own conversations only). */}
              <ExportButtons id={id} />
              {c.canDelete ? (
                <Button variant="outlined" color="error" startIcon={<DeleteOutlineIcon />} onClick={() => setConfirming(true)}>
                  Delete
                </Button>
              ) : null}
              {c.canDelete ? (
                <Button variant="outlined" color="error" startIcon={<PersonOffOutlinedIcon />} onClick={() => setErasing(true)}>
                  {PrivacyMessages.eraseVisitor}
                </Button>
              ) : null}
            </Box>
          ) : null
        }
      />
      {query.isPending ? (
        <Box role="status" aria-label="Loading the conversation" sx={{ display: 'grid', gap: 2 }}>
          <Skeleton variant="rounded" height={120} />
          <Skeleton variant="rounded" height={320} />
        </Box>
      ) : query.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void query.refetch()}>
              Retry
            </Button>
          }
        >
          <AlertTitle>{ConversationMessages.transcriptFailed}</AlertTitle>
          {errorMessages(query.error).join(' ')}
        </Alert>
      ) : (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <ConversationFacts conversation={query.data} />
          <SessionSummary conversation={query.data} />
          {query.data.textRemoved ? (
            <Alert severity="info">{PrivacyMessages.textRemoved}</Alert>
          ) : (
            <>
              {search ? (
                <Typography variant="body2" color="text.secondary" role="status">
                  {query.data.matches?.length
                    ? `${query.data.matches.length === 1 ? '1 turn holds' : `${query.data.matches.length} turns hold`} “${search}”: marked below.`
                    : `No single turn holds every word of “${search}”.`}
                </Typography>
              ) : null}
              <Transcript turns={query.data.turnList} matches={query.data.matches} />
            </>
          )}
        </Box>
      )}
      <ConfirmDialog
        open={isConfirming}
        title="Delete conversation"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        tone="error"
        isBusy={remove.isPending}
        onConfirm={confirmDelete}
        onCancel={() => {
          remove.reset();
          setConfirming(false);
        }}
        footer={
          remove.isError ? (
            <Alert severity="error" sx={{ mt: 2 }}>
              {ConversationMessages.deleteFailed} {errorMessages(remove.error).join(' ')}
            </Alert>
          ) : null
        }
      >
        {ConversationMessages.deleteConfirm}
      </ConfirmDialog>
      <ConfirmDialog
        open={isErasing}
        title={PrivacyMessages.eraseVisitor}
        confirmLabel="Erase"
        cancelLabel="Cancel"
        tone="error"
        isBusy={erase.isPending}
        onConfirm={confirmErase}
        onCancel={() => {
          erase.reset();
          setErasing(false);
        }}
        footer={
          erase.isError ? (
            <Alert severity="error" sx={{ mt: 2 }}>
              {PrivacyMessages.eraseFailed} {errorMessages(erase.error).join(' ')}
            </Alert>
          ) : null
        }
      >
        {c ? PrivacyMessages.eraseVisitorConfirm(c.visitor) : null}
      </ConfirmDialog>
    </PageContainer>
  );
}
