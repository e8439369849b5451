import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import LibraryBooksOutlinedIcon from '@mui/icons-material/LibraryBooksOutlined';
import { KnowledgeMessages, ZCollectionForm, type TCollectionForm, type TKnowledgeCollection, type TKnowledgeItem } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { LoadFailure } from '../../../components/side-panel';
import { EditorPanel } from '../../../components/side-panel';
import { showToast } from '../../../lib/toast';
import { useRenameCollection } from '../api/collections';
import { useKnowledge, useKnowledgeMutations } from '../api/items';
import type { KnowledgeHelpKey } from '../help';
import { AddKnowledgeDialog } from './add-knowledge-dialog';
import { FormTextField } from './fields';
import { KnowledgeTable } from './knowledge-table';
import { TryQuestion } from './try-question';

const FORM_ID = 'collection-name-form';

/** The Collection Builder: the editable name, the items table, Add Knowledge and Try a question. */
export function CollectionBuilder({ collection, onClose, onDelete, onHelp }: { collection: TKnowledgeCollection; onClose: () => void; onDelete: () => void; onHelp: (key: KnowledgeHelpKey) => void }) {
  const items = useKnowledge(collection.id);
  const mutations = useKnowledgeMutations(collection.id);
  const rename = useRenameCollection();
  const [adding, setAdding] = useState(false);
  const [toDelete, setToDelete] = useState<TKnowledgeItem | null>(null);
  const form = useForm<TCollectionForm>({ resolver: zodResolver(ZCollectionForm), defaultValues: { name: collection.name }, reValidateMode: 'onChange' });
  useEffect(() => form.reset({ name: collection.name }), [collection.id, collection.name, form]);

  const save = form.handleSubmit(async ({ name }) => {
    try {
      await rename.mutateAsync({ id: collection.id, name });
      void showToast(KnowledgeMessages.collectionUpdated, 'success', { id: 'knowledge' });
    } catch {
      void showToast(KnowledgeMessages.updateFailed, 'error', { id: 'knowledge' });
    }
  });

  const confirmDelete = async () => {
    if (!toDelete) return;
    const { name, id } = toDelete;
    try {
      await mutations.remove.mutateAsync(id);
      void showToast(KnowledgeMessages.knowledgeDeleted(name), 'success', { id: 'knowledge' });
    } catch {
      void showToast(KnowledgeMessages.knowledgeDeleteFailed(name), 'error', { id: 'knowledge' });
    } finally {
      setToDelete(null);
    }
  };

  const retry = async (item: TKnowledgeItem) => {
    try {
      await mutations.update.mutateAsync({ id: item.id, changes: { reprocess: true } });
    } catch {
      void showToast(KnowledgeMessages.updateFailed, 'error', { id: 'knowledge' });
    }
  };

  const list = items.data ?? [];
  const hasReady = list.some((i) => i.status === 'ready');

  return (
    <EditorPanel
      title={collection.name}
      onClose={onClose}
      formId={FORM_ID}
      isSaving={rename.isPending}
      actions={
        <Button color="error" variant="outlined" onClick={onDelete}>
          Delete collection
        </Button>
      }
    >
      <Box component="form" id={FORM_ID} noValidate onSubmit={save} onFocusCapture={() => onHelp('collectionName')}>
        <FormTextField control={form.control} name="name" label="Collection Name" />
      </Box>
      <Divider sx={{ my: 3 }} />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h3" sx={{ flex: 1 }} onClick={() => onHelp('items')}>
          Knowledge
        </Typography>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setAdding(true)}>
          Add Knowledge
        </Button>
      </Box>
      {items.isPending ? (
        <Box aria-busy="true" aria-label="Loading knowledge" sx={{ display: 'grid', gap: 1 }}>
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} variant="rounded" height={44} />
          ))}
        </Box>
      ) : items.error ? (
        <LoadFailure name="knowledge" error={items.error} onRetry={() => void items.refetch()} />
      ) : list.length === 0 ? (
        <Box sx={{ textAlign: 'center', py: 5, px: 2, border: 1, borderColor: 'divider', borderStyle: 'dashed', borderRadius: 2 }}>
          <LibraryBooksOutlinedIcon color="disabled" sx={{ fontSize: 44 }} />
          <Typography sx={{ fontWeight: 600, mt: 1 }}>No knowledge in this collection yet.</Typography>
          <Typography variant="body2" color="text.secondary">
            Add text, web pages, a crawl of your site or files with Add Knowledge.
          </Typography>
        </Box>
      ) : (
        <KnowledgeTable items={list} onDelete={setToDelete} onRetry={(item) => void retry(item)} />
      )}
      <Divider sx={{ my: 3 }} />
      <Box onFocusCapture={() => onHelp('tryQuestion')}>
        <TryQuestion collectionId={collection.id} disabled={!hasReady} />
        {!hasReady && list.length > 0 ? (
          <Alert severity="info" sx={{ mt: 1.5 }}>
            Questions can be tried once an item is ready.
          </Alert>
        ) : null}
      </Box>
      <AddKnowledgeDialog open={adding} collectionId={collection.id} collectionName={collection.name} onClose={() => setAdding(false)} onChanged={() => void mutations.invalidate()} />
      <ConfirmDialog
        open={toDelete !== null}
        title={toDelete ? `Delete "${toDelete.name}"?` : 'Delete knowledge'}
        tone="error"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        isBusy={mutations.remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      >
        {KnowledgeMessages.itemDeleteConfirm}
      </ConfirmDialog>
    </EditorPanel>
  );
}
