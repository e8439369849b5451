import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { KnowledgeMessages, ZCollectionForm, type TCollectionForm, type TKnowledgeCollection } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { EditorPanel, InfoPanel, SidePanel, SidePanelLayout, useInfoPanel } from '../../../components/side-panel';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useCollections, useCreateCollection, useDeleteCollection } from '../api/collections';
import { CollectionBuilder } from '../components/collection-builder';
import { FormTextField } from '../components/fields';
import { knowledgeHelp } from '../help';

const FORM_ID = 'collection-create-form';

/** /knowledgeBase: the side panel of collections, the create page and the Collection Builder. */
export function KnowledgeBaseRoute() {
  useDocumentTitle('Knowledge Base');
  const collections = useCollections();
  const create = useCreateCollection();
  const remove = useDeleteCollection();
  const info = useInfoPanel(knowledgeHelp, 'page');
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [toDelete, setToDelete] = useState<TKnowledgeCollection | null>(null);
  const form = useForm<TCollectionForm>({ resolver: zodResolver(ZCollectionForm), defaultValues: { name: '' }, reValidateMode: 'onChange' });
  const selected = collections.data?.find((c) => c.id === selectedId) ?? null;

  const resetSelection = () => {
    setSelectedId(null);
    form.reset({ name: '' });
    info.reset();
  };

  const submit = form.handleSubmit(async ({ name }) => {
    try {
      const created = await create.mutateAsync(name);
      form.reset({ name: '' });
      setSelectedId(created.id);
      void showToast(KnowledgeMessages.collectionCreated, 'success', { id: 'collection' });
    } catch (error) {
      form.setError('name', { message: errorMessages(error).join(' ') });
      void showToast(KnowledgeMessages.createFailed, 'error', { id: 'collection' });
    }
  });

  const confirmDelete = async () => {
    if (!toDelete) return;
    try {
      await remove.mutateAsync(toDelete.id);
      void showToast(KnowledgeMessages.collectionDeleted, 'success', { id: 'collection' });
      if (selectedId === toDelete.id) resetSelection();
    } catch {
      void showToast(KnowledgeMessages.deleteFailed, 'error', { id: 'collection' });
    } finally {
      setToDelete(null);
    }
  };

  return (
    <PageContainer maxWidth="xl">
      <SidePanelLayout
        panel={
          <SidePanel
            title="Collections"
            itemsName="collections"
            items={collections.data}
            isLoading={collections.isPending}
            error={collections.error}
            onRetry={() => void collections.refetch()}
            getKey={(c) => c.id}
            getTitle={(c) => c.name}
            renderDetails={(c) => (
              <Typography variant="body2" color="text.secondary">
                {c.item_count} {c.item_count === 1 ? 'item' : 'items'} · Created {formatDateTime(c.created_at)}
              </Typography>
            )}
            selectedKey={selectedId}
            onEdit={(c) => {
              setSelectedId(c.id);
              info.show('items');
            }}
            onDelete={(c) => setToDelete(c)}
            onCreate={resetSelection}
            createLabel="New"
            emptyText="No collections yet."
          />
        }
        info={<InfoPanel item={info.item} />}
      >
        {selected ? (
          <CollectionBuilder collection={selected} onClose={resetSelection} onDelete={() => setToDelete(selected)} onHelp={info.show} />
        ) : (
          <EditorPanel title="Create a collection" formId={FORM_ID} saveLabel="Create" isSaving={create.isPending}>
            <Box component="form" id={FORM_ID} noValidate onSubmit={submit} onFocusCapture={() => info.show('collectionName')} sx={{ display: 'grid', gap: 2 }}>
              <Typography color="text.secondary">A collection groups the text, web pages and files an avatar can answer from. Name it, then add knowledge to it.</Typography>
              <FormTextField control={form.control} name="name" label="Collection Name" />
            </Box>
          </EditorPanel>
        )}
      </SidePanelLayout>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete collection"
        tone="error"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        isBusy={remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      >
        {toDelete ? KnowledgeMessages.collectionDeleteConfirm(toDelete.name) : ''}
      </ConfirmDialog>
    </PageContainer>
  );
}
