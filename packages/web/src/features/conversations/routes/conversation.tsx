import { useState } from 'react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { ConversationMessages, ZConversationId } from '@persona/contract';
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

function BackLink() {
  return (
    <Button component={RouterLink} to={paths.conversations} startIcon={<ArrowBackIcon />} color="inherit" size="small" sx={{ mb: 1.5, ml: -1 }}>
      All conversations
    </Button>
  );
}

function ConversationPage({ id }: { id: string }) {
  const isAdmin = isAdminSession(useSession());
  const query = useConversation(id, isAdmin);
  const remove = useDeleteConversation();
  const navigate = useNavigate();
  const [isConfirming, setConfirming] = useState(false);
  const c = query.data;

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
      <BackLink />
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
          <Transcript turns={query.data.turnList} />
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
    </PageContainer>
  );
}
