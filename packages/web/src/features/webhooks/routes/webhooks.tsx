import { useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import WebhookOutlinedIcon from '@mui/icons-material/WebhookOutlined';
import { WebhookEventTypes, WebhookLabels, WebhookMessages, type TWebhookEndpoint } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useDeleteWebhook } from '../api/delete-webhook';
import { useAvatarNames } from '../api/list-avatar-names';
import { useWebhooks } from '../api/list-webhooks';
import { useRollWebhookSecret } from '../api/roll-webhook-secret';
import { useAddWebhook, useUpdateWebhook } from '../api/save-webhook';
import { useSendTestEvent } from '../api/send-test-event';
import { DeliveryLog } from '../components/delivery-log';
import { SecretOnceDialog } from '../components/secret-once';
import { WebhookFormDialog, type WebhookDraft } from '../components/webhook-form';

/** /webhooks: the account's endpoints, their secrets (once), their delivery logs (ADR 093). */
export function WebhooksRoute() {
  useDocumentTitle('Webhooks');
  const list = useWebhooks();
  const avatars = useAvatarNames();
  const add = useAddWebhook();
  const update = useUpdateWebhook();
  const remove = useDeleteWebhook();
  const roll = useRollWebhookSecret();
  const test = useSendTestEvent();
  const [form, setForm] = useState<{ editing: TWebhookEndpoint | null } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'delete' | 'roll'; endpoint: TWebhookEndpoint } | null>(null);
  const avatarName = (id: number | null) => (id === null ? 'All avatars' : (avatars.data?.find((a) => a.id === id)?.name ?? `Avatar ${id}`));
  const saving = form?.editing ? update : add;

  const save = (draft: WebhookDraft) => {
    if (form?.editing) {
      update.mutate(
        { id: form.editing.id, ...draft },
        {
          onSuccess: () => {
            setForm(null);
            void showToast(WebhookMessages.saved, 'success');
          },
        },
      );
    } else {
      add.mutate(draft, {
        onSuccess: (answer) => {
          setForm(null);
          setSecret(answer.secret);
          setOpen(answer.webhook.id);
        },
      });
    }
  };

  const sendTest = (endpoint: TWebhookEndpoint) => {
    setOpen(endpoint.id);
    test.mutate(endpoint.id, {
      onSuccess: () => void showToast(WebhookMessages.testQueued, 'success'),
      onError: (err) => void showToast(errorMessages(err).join(' '), 'error'),
    });
  };

  return (
    <PageContainer maxWidth="lg">
      <PageHeader
        title="Webhooks"
        description="Have your own systems told when a conversation starts or ends, with its transcript: signed JSON requests to your URL, retried for 24 hours."
        actions={
          <Button
            variant="contained"
            onClick={() => {
              add.reset();
              setForm({ editing: null });
            }}
          >
            Add webhook
          </Button>
        }
      />
      {list.isPending ? (
        <Box role="status" sx={{ py: 6, display: 'flex', justifyContent: 'center' }}>
          <CircularProgress size={30} aria-label="Fetching webhooks" />
        </Box>
      ) : list.isError ? (
        <Alert severity="error" action={<Button onClick={() => void list.refetch()}>Retry</Button>}>
          <AlertTitle>{WebhookMessages.listFailed}</AlertTitle>
          {errorMessages(list.error).join(' ')}
        </Alert>
      ) : list.data.length === 0 ? (
        <Paper variant="outlined" sx={{ py: 7, px: 2, textAlign: 'center', display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1 }}>
          <Box sx={{ width: 56, height: 56, borderRadius: '50%', display: 'grid', placeItems: 'center', bgcolor: 'rgba(79, 70, 229, 0.08)', color: 'primary.main', mb: 1, '& svg': { fontSize: 30 } }}>
            <WebhookOutlinedIcon />
          </Box>
          <Typography variant="h5" component="p">
            No webhooks yet
          </Typography>
          <Typography color="text.secondary" sx={{ maxWidth: 460 }}>
            Add a URL of yours to receive session.ended with each conversation’s outcome and summary, or its whole transcript.
          </Typography>
        </Paper>
      ) : (
        <Stack component="ul" spacing={2} sx={{ listStyle: 'none', p: 0, m: 0 }}>
          {list.data.map((endpoint) => (
            <Paper component="li" key={endpoint.id} variant="outlined" aria-label={endpoint.url} sx={{ overflow: 'hidden' }}>
              <Box sx={{ p: 2, display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'flex-start', justifyContent: 'space-between' }}>
                <Box sx={{ minWidth: 0, flex: '1 1 320px' }}>
                  <Typography component="h2" variant="h6" sx={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: '0.95rem', wordBreak: 'break-all' }}>
                    {endpoint.url}
                  </Typography>
                  <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
                    {avatarName(endpoint.avatarId)}
                  </Typography>
                  <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.75, mt: 1 }}>
                    {!endpoint.enabled ? <Chip size="small" color="warning" label="Disabled" /> : null}
                    {WebhookEventTypes.filter((e) => endpoint.events.includes(e)).map((e) => (
                      <Chip key={e} size="small" variant="outlined" label={WebhookLabels.event[e]} />
                    ))}
                  </Box>
                </Box>
                <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
                  <Button size="small" variant="outlined" onClick={() => sendTest(endpoint)} disabled={test.isPending}>
                    Send test event
                  </Button>
                  <Button size="small" onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)} aria-expanded={open === endpoint.id}>
                    {open === endpoint.id ? 'Hide deliveries' : 'Deliveries'}
                  </Button>
                  <Button
                    size="small"
                    onClick={() => {
                      update.reset();
                      setForm({ editing: endpoint });
                    }}
                    aria-label={`Edit ${endpoint.url}`}
                  >
                    Edit
                  </Button>
                  <Button size="small" onClick={() => setConfirm({ kind: 'roll', endpoint })}>
                    Roll secret
                  </Button>
                  <Button size="small" color="error" onClick={() => setConfirm({ kind: 'delete', endpoint })} aria-label={`Delete ${endpoint.url}`}>
                    Delete
                  </Button>
                </Box>
              </Box>
              {open === endpoint.id ? (
                <Box sx={{ borderTop: 1, borderColor: 'divider' }}>
                  <DeliveryLog endpointId={endpoint.id} />
                </Box>
              ) : null}
            </Paper>
          ))}
        </Stack>
      )}
      {form ? (
        <WebhookFormDialog
          open
          editing={form.editing}
          avatars={avatars.data ?? []}
          isBusy={saving.isPending}
          errors={saving.isError ? errorMessages(saving.error) : []}
          onSave={save}
          onCancel={() => setForm(null)}
        />
      ) : null}
      <SecretOnceDialog secret={secret} onDone={() => setSecret(null)} />
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === 'roll' ? 'Roll the signing secret?' : 'Delete webhook?'}
        confirmLabel={confirm?.kind === 'roll' ? 'Roll secret' : 'Delete'}
        cancelLabel="Cancel"
        tone={confirm?.kind === 'roll' ? 'primary' : 'error'}
        isBusy={remove.isPending || roll.isPending}
        onCancel={() => setConfirm(null)}
        onConfirm={() => {
          if (!confirm) return;
          const { kind, endpoint } = confirm;
          const done = { onSettled: () => setConfirm(null), onError: (err: unknown) => void showToast(errorMessages(err).join(' '), 'error') };
          if (kind === 'roll') roll.mutate(endpoint.id, { ...done, onSuccess: (answer) => setSecret(answer.secret) });
          else remove.mutate(endpoint.id, { ...done, onSuccess: () => void showToast(WebhookMessages.deleted, 'success') });
        }}
      >
        {confirm?.kind === 'roll' ? WebhookMessages.rollConfirm : WebhookMessages.deleteConfirm}
      </ConfirmDialog>
    </PageContainer>
  );
}
