import { useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { ApprovalStatus, FunctionMessages, type TFunction, type TFunctionForm, type TFunctionTemplate } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { EditorPanel, InfoPanel, SidePanel, SidePanelLayout, useInfoPanel } from '../../../components/side-panel';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useFunctions } from '../api/list-functions';
import { useMutateFunction } from '../api/mutate-functions';
import { ApprovalChip } from '../components/approval-chip';
import { FunctionCardDetails } from '../components/function-dates';
import { FunctionForm } from '../components/function-form';
import { TemplateChooser } from '../components/template-chooser';
import { functionHelp } from '../help';

const FORM_ID = 'function-form';

/** /functions: the side panel of functions, the template chooser and the code editor. */
export function FunctionsRoute() {
  useDocumentTitle('Functions');
  const functions = useFunctions();
  const mutation = useMutateFunction();
  const info = useInfoPanel(functionHelp, 'page');
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [template, setTemplate] = useState<TFunctionTemplate | null>(null);
  const [toDelete, setToDelete] = useState<TFunction | null>(null);
  // Remounts the form whenever what it edits changes.
  const [formKey, setFormKey] = useState(0);

  const selected = functions.data?.find((f) => f.id === selectedId) ?? null;

  const resetSelection = () => {
    setSelectedId(null);
    setTemplate(null);
    setFormKey((k) => k + 1);
    info.reset();
  };

  const edit = (fn: TFunction) => {
    setSelectedId(fn.id);
    setTemplate(null);
    setFormKey((k) => k + 1);
    info.show('code');
  };

  const save = async (values: TFunctionForm) => {
    const isNew = selected === null;
    try {
      await mutation.mutateAsync(
        isNew
          ? { action: 'new', name: values.name, code: values.code, language: 'python', template: template?.id ?? null }
          : { action: 'update', id: selected.id, name: values.name, code: values.code },
      );
    } catch (error) {
      void showToast(isNew ? FunctionMessages.createFailed : FunctionMessages.updateFailed, 'error', { id: 'function' });
      throw error;
    }
    void showToast(isNew ? FunctionMessages.created : FunctionMessages.updated, 'success', { id: 'function' });
    resetSelection();
  };

  const confirmDelete = async () => {
    if (!toDelete) return;
    try {
      await mutation.mutateAsync({ action: 'delete', id: toDelete.id });
      void showToast(FunctionMessages.deleted, 'success', { id: 'function' });
      resetSelection();
    } catch {
      void showToast(FunctionMessages.deleteFailed, 'error', { id: 'function' });
    } finally {
      setToDelete(null);
    }
  };

  let editor;
  if (selected) {
    editor = (
      <EditorPanel
        title={selected.name}
        badge={<ApprovalChip status={selected.approvalStatus} size="medium" />}
        formId={FORM_ID}
        saveLabel="Save"
        isSaving={mutation.isPending}
        onClose={resetSelection}
        actions={
          <Button color="error" startIcon={<DeleteOutlineIcon />} onClick={() => setToDelete(selected)} disabled={mutation.isPending}>
            Delete
          </Button>
        }
      >
        {selected.approvalStatus === ApprovalStatus.Rejected && selected.rejectionReason ? (
          <Alert severity="error" sx={{ mb: 2.5 }}>
            <AlertTitle>Rejected by a moderator</AlertTitle>
            {selected.rejectionReason} Change the code and save it to send it for review again.
          </Alert>
        ) : null}
        {selected.approvalStatus === ApprovalStatus.Approved ? (
          <Alert severity="info" sx={{ mb: 2.5 }}>
            This function is approved. Saving changed code sends it back to Pending until a moderator reviews it again.
          </Alert>
        ) : null}
        <FunctionForm key={formKey} formId={FORM_ID} defaultValues={{ name: selected.name, code: selected.code }} onSubmit={save} onHelp={info.show} />
      </EditorPanel>
    );
  } else if (template) {
    editor = (
      <EditorPanel
        title={`New function: ${template.title}`}
        formId={FORM_ID}
        saveLabel="Create"
        isSaving={mutation.isPending}
        onClose={resetSelection}
        actions={
          <Button startIcon={<SwapHorizIcon />} onClick={() => setTemplate(null)} disabled={mutation.isPending}>
            Choose Another Template
          </Button>
        }
      >
        <FunctionForm key={formKey} formId={FORM_ID} defaultValues={{ name: template.name, code: template.code }} onSubmit={save} onHelp={info.show} />
      </EditorPanel>
    );
  } else {
    editor = (
      <EditorPanel title="Create a function">
        <TemplateChooser
          key={formKey}
          onFocusHelp={() => info.show('template')}
          onChoose={(chosen) => {
            setTemplate(chosen);
            setFormKey((k) => k + 1);
            info.show('code');
          }}
        />
      </EditorPanel>
    );
  }

  return (
    <PageContainer maxWidth="xl">
      <SidePanelLayout
        panel={
          <SidePanel
            title="Functions"
            itemsName="functions"
            items={functions.data}
            isLoading={functions.isPending}
            error={functions.error}
            onRetry={() => void functions.refetch()}
            getKey={(fn) => fn.id}
            getTitle={(fn) => fn.name}
            renderDetails={(fn) => <FunctionCardDetails fn={fn} />}
            selectedKey={selectedId}
            onEdit={edit}
            onDelete={setToDelete}
            onCreate={resetSelection}
            createLabel="New"
            emptyText="No functions yet. Choose a template to create your first one."
          />
        }
        info={<InfoPanel item={info.item} />}
      >
        {editor}
      </SidePanelLayout>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete function"
        tone="error"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        isBusy={mutation.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      >
        {toDelete ? FunctionMessages.deleteConfirm(toDelete.name) : ''}
      </ConfirmDialog>
    </PageContainer>
  );
}
