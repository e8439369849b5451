import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import { EncryptionKeyMessages, FunctionMessages, ZEncryptionKeyForm, type TEncryptionKey, type TEncryptionKeyForm } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { TextInput } from '../../../components/form/text-input';
import { PageContainer } from '../../../components/page-container';
import { EditorPanel, InfoPanel, SidePanel, SidePanelLayout, useInfoPanel } from '../../../components/side-panel';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAddEncryptionKey } from '../api/add-encryption-key';
import { useDeleteEncryptionKey } from '../api/delete-encryption-key';
import { useEncryptionKeys } from '../api/list-encryption-keys';
import { KeyCardDetails } from '../components/key-card-details';
import { PrivateKeyOnce } from '../components/private-key-once';
import { encryptionKeyHelp } from '../help';

const FORM_ID = 'encryption-key-form';

/** /encryptionKeys: the side panel of keys, the create page (Encryption Name) and the key shown once. */
export function EncryptionKeysRoute() {
  useDocumentTitle('Encryption Keys');
  const keys = useEncryptionKeys();
  const add = useAddEncryptionKey();
  const remove = useDeleteEncryptionKey();
  const info = useInfoPanel(encryptionKeyHelp, 'page');
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [created, setCreated] = useState<(TEncryptionKey & { encKey: string }) | null>(null);
  const [toDelete, setToDelete] = useState<TEncryptionKey | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const form = useForm<TEncryptionKeyForm>({ resolver: zodResolver(ZEncryptionKeyForm), defaultValues: { name: '' }, reValidateMode: 'onChange' });

  const selected = keys.data?.find((k) => k.id === selectedId) ?? null;

  const resetSelection = () => {
    setSelectedId(null);
    setCreated(null);
    form.reset({ name: '' });
    info.reset();
  };

  const submit = form.handleSubmit(async ({ name }) => {
    try {
      const key = await add.mutateAsync(name);
      setSelectedId(null);
      setCreated(key);
      form.reset({ name: '' });
      info.show('privateKey');
      void showToast(EncryptionKeyMessages.created, 'success', { id: 'encryption-key' });
    } catch (error) {
      form.setError('name', { message: errorMessages(error).join(' ') });
      void showToast(FunctionMessages.createFailed, 'error', { id: 'encryption-key' });
    }
  });

  const confirmDelete = async () => {
    if (!toDelete) return;
    setDeleteError(null);
    try {
      await remove.mutateAsync(toDelete.id);
      void showToast(EncryptionKeyMessages.deleted, 'success', { id: 'encryption-key' });
      setToDelete(null);
      resetSelection();
    } catch (error) {
      setDeleteError(errorMessages(error).join(' '));
      void showToast(FunctionMessages.deleteFailed, 'error', { id: 'encryption-key' });
    }
  };

  let editor;
  if (created) {
    editor = (
      <EditorPanel
        title={created.name}
        badge={<Chip label="New key" color="success" size="small" />}
        actions={
          <Button variant="outlined" onClick={resetSelection}>
            Done
          </Button>
        }
      >
        <PrivateKeyOnce privateKey={created.encKey} onFocusHelp={() => info.show('privateKey')} />
      </EditorPanel>
    );
  } else if (selected) {
    editor = (
      <EditorPanel title={selected.name} badge={selected.defaultKey ? <Chip label="Default" color="primary" size="small" /> : undefined} onClose={resetSelection}>
        <Box
          component="dl"
          sx={{
            m: 0,
            display: 'grid',
            gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: '160px minmax(0, 1fr)' },
            rowGap: { xs: 0.5, sm: 1.5 },
            columnGap: 2,
            '& dt': { fontSize: 13, fontWeight: 600, color: 'text.secondary', pt: { xs: 1, sm: 0 } },
          }}
        >
          <Typography component="dt" color="text.secondary">
            Encryption Name
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {selected.name}
          </Typography>
          <Typography component="dt" color="text.secondary">
            Created
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {formatDateTime(selected.created)}
          </Typography>
          <Typography component="dt" color="text.secondary" onClick={() => info.show('defaultKey')}>
            Default key
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {selected.defaultKey ? 'Yes — it cannot be deleted, and its private key stays with the portal.' : 'No'}
          </Typography>
          <Typography component="dt" color="text.secondary">
            Public key
          </Typography>
          <Box
            component="dd"
            tabIndex={0}
            onFocus={() => info.show('publicKey')}
            sx={{ m: 0, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-all', bgcolor: 'grey.50', p: 1.5, borderRadius: 1.5 }}
          >
            {selected.publicKey}
          </Box>
        </Box>
        <Alert severity="info" sx={{ mt: 2.5 }}>
          Keys cannot be edited. To replace this key, create a new one, switch your avatars to it and delete this one.
        </Alert>
      </EditorPanel>
    );
  } else {
    editor = (
      <EditorPanel title="Create an encryption key" formId={FORM_ID} saveLabel="Create" isSaving={add.isPending}>
        <Box component="form" id={FORM_ID} noValidate onSubmit={submit} onFocusCapture={() => info.show('name')} sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2 }}>
          <Typography color="text.secondary">
            The server makes an ES256 key pair. You get the private key once, to sign access tokens for your avatars on your own server.
          </Typography>
          <TextInput control={form.control} name="name" label="Encryption Name" autoComplete="off" />
        </Box>
      </EditorPanel>
    );
  }

  return (
    <PageContainer maxWidth="xl">
      <SidePanelLayout
        panel={
          <SidePanel
            title="Encryption Keys"
            itemsName="encryption keys"
            items={keys.data}
            isLoading={keys.isPending}
            error={keys.error}
            onRetry={() => void keys.refetch()}
            getKey={(k) => k.id}
            getTitle={(k) => k.name}
            renderDetails={(k) => <KeyCardDetails encKey={k} />}
            selectedKey={selectedId}
            editLabel="View"
            onEdit={(k) => {
              setCreated(null);
              setSelectedId(k.id);
              info.show(k.defaultKey ? 'defaultKey' : 'publicKey');
            }}
            onDelete={(k) => {
              setDeleteError(null);
              setToDelete(k);
            }}
            canDelete={(k) => !k.defaultKey}
            onCreate={resetSelection}
            createLabel="New"
            emptyText="No encryption keys yet."
          />
        }
        info={<InfoPanel item={info.item} />}
      >
        {editor}
      </SidePanelLayout>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete encryption key"
        tone="error"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        isBusy={remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
        footer={deleteError ? <Alert severity="error" sx={{ mt: 2 }}>{deleteError}</Alert> : null}
      >
        {toDelete ? `Are you sure you want to delete "${toDelete.name}"? Tokens signed with it will stop working. This action cannot be undone.` : ''}
      </ConfirmDialog>
    </PageContainer>
  );
}
