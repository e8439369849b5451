import { useState } from 'react';
import { useDropzone, type FileRejection } from 'react-dropzone';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import DescriptionOutlinedIcon from '@mui/icons-material/DescriptionOutlined';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  KnowledgeFileTypes,
  KnowledgeLimits,
  KnowledgeMessages,
  ZKnowledgeFileForm,
  knowledgeFileMaxBytes,
  knowledgeFileTypeFromName,
  type TKnowledgeFileForm,
  type TKnowledgeFileType,
} from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { createKnowledge } from '../api/items';
import { UploadError, uploadKnowledgeFile } from '../api/upload-file';
import { waitForItems } from '../api/wait-for-items';
import { useCreepingProgress } from '../hooks/use-creeping-progress';
import { FormTextField } from './fields';
import { SingleProgress } from './progress';

const ACCEPT = Object.fromEntries(Object.entries(KnowledgeFileTypes).map(([type, v]) => [type, [`.${v.ext}`]]));
const sizeLabel = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

/** Checks a chosen file: one of the three types, within that type's size. */
export function checkKnowledgeFile(file: { name: string; size: number; type: string }): { type: TKnowledgeFileType } | { error: string } {
  const type = (file.type in KnowledgeFileTypes ? (file.type as TKnowledgeFileType) : null) ?? knowledgeFileTypeFromName(file.name);
  if (!type) return { error: KnowledgeMessages.invalidFile };
  if (file.size > knowledgeFileMaxBytes(type)) return { error: KnowledgeMessages.fileTooLarge(KnowledgeFileTypes[type].maxMb, KnowledgeFileTypes[type].label) };
  if (file.size === 0) return { error: KnowledgeMessages.invalidFile };
  return { type };
}

/** The File tab: Name, Description and the drop zone (PDF ≤ 25 MB, TXT ≤ 5 MB, DOCX ≤ 20 MB). */
export function FileTab({ collectionId, onDone, onBusy }: { collectionId: number; onDone: () => void; onBusy: (busy: boolean) => void }) {
  const form = useForm<TKnowledgeFileForm>({ resolver: zodResolver(ZKnowledgeFileForm), defaultValues: { name: '', description: '' }, mode: 'onChange' });
  const [file, setFile] = useState<{ file: File; type: TKnowledgeFileType } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [phase, setPhase] = useState<'Uploading the file…' | 'Processing the file…'>('Uploading the file…');
  const progress = useCreepingProgress();
  const busy = progress.state === 'normal';
  const name = form.watch('name');

  const onDrop = (accepted: File[], rejected: FileRejection[]) => {
    setError(null);
    const candidate = accepted[0] ?? rejected[0]?.file;
    if (!candidate) return;
    const checked = checkKnowledgeFile(candidate);
    if ('error' in checked) {
      setFile(null);
      setFileError(checked.error);
      return;
    }
    setFileError(null);
    setFile({ file: candidate, type: checked.type });
    if (!form.getValues('name')) form.setValue('name', candidate.name.replace(/\.[^.]+$/, '').slice(0, KnowledgeLimits.nameMax), { shouldValidate: true });
  };
  const dropzone = useDropzone({ onDrop, multiple: false, maxSize: KnowledgeLimits.dropZoneMaxMb * 1024 * 1024, accept: ACCEPT, disabled: busy });

  const submit = form.handleSubmit(async (values) => {
    if (!file) {
      setFileError(KnowledgeMessages.fileRequired);
      return;
    }
    setError(null);
    setPhase('Uploading the file…');
    progress.start();
    onBusy(true);
    try {
      let finalUrl: string;
      try {
        finalUrl = await uploadKnowledgeFile(file.file, file.type);
      } catch (err) {
        throw new Error(err instanceof UploadError && err.message ? err.message : KnowledgeMessages.uploadFailed);
      }
      setPhase('Processing the file…');
      const item = await createKnowledge({ collection_id: collectionId, knowledge_type: 'file', name: values.name, description: values.description || null, file_name: file.file.name, file_type: file.type, url: finalUrl });
      const [settled] = await waitForItems(collectionId, [item.id], () => undefined);
      if (settled?.status === 'ready') {
        progress.finish('success');
        setTimeout(onDone, KnowledgeLimits.progressSuccessDelayMs);
      } else {
        setError(settled?.status_reason ?? KnowledgeMessages.fileProcessFailed);
        progress.finish('error');
      }
    } catch (err) {
      setError(err instanceof Error && !('kind' in err) ? err.message : errorMessages(err).join(' '));
      progress.finish('error');
    } finally {
      onBusy(false);
    }
  });

  return (
    <Box component="form" noValidate onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
      <FormTextField control={form.control} name="name" label="Name" disabled={busy} />
      <FormTextField control={form.control} name="description" label="Description (optional)" disabled={busy} />
      <Box
        {...dropzone.getRootProps()}
        sx={{
          border: 2,
          borderStyle: 'dashed',
          borderColor: dropzone.isDragActive ? 'primary.main' : fileError ? 'error.main' : 'divider',
          bgcolor: dropzone.isDragActive ? 'rgba(79, 70, 229, 0.06)' : 'grey.50',
          borderRadius: 2,
          p: 3,
          textAlign: 'center',
          cursor: busy ? 'default' : 'pointer',
          outline: 'none',
          '&:focus-visible': { borderColor: 'primary.main' },
        }}
      >
        <input {...dropzone.getInputProps()} aria-label="Knowledge file" />
        <UploadFileIcon color="primary" sx={{ fontSize: 40 }} />
        <Typography sx={{ fontWeight: 600 }}>Drag and drop a file here, or click to choose one</Typography>
        <Typography variant="body2" color="text.secondary">
          PDF up to 25 MB · plain text (.txt) up to 5 MB · Word (.docx) up to 20 MB
        </Typography>
      </Box>
      {fileError ? (
        <Alert severity="error" role="alert">
          {fileError}
        </Alert>
      ) : null}
      {file ? (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, border: 1, borderColor: 'divider', borderRadius: 2, px: 1.5, py: 1 }}>
          <DescriptionOutlinedIcon color="action" />
          <Typography sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
            {file.file.name} <Typography component="span" variant="body2" color="text.secondary">({KnowledgeFileTypes[file.type].label}, {sizeLabel(file.file.size)})</Typography>
          </Typography>
          <IconButton aria-label="Remove file" onClick={() => setFile(null)} disabled={busy} size="small">
            <CloseIcon fontSize="small" />
          </IconButton>
        </Box>
      ) : null}
      <SingleProgress state={progress.state} value={progress.value} label={phase} error={error} />
      <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button type="submit" variant="contained" disabled={!file || !name?.trim() || busy || progress.state === 'success'} loading={busy}>
          Submit
        </Button>
      </Box>
    </Box>
  );
}
