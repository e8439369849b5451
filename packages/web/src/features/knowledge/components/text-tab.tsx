import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { KnowledgeLimits, KnowledgeMessages, ZKnowledgeTextForm, type TKnowledgeTextForm } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { createKnowledge } from '../api/items';
import { waitForItems } from '../api/wait-for-items';
import { useCreepingProgress } from '../hooks/use-creeping-progress';
import { FormTextField } from './fields';
import { SingleProgress } from './progress';

/** The Text tab: Name, Description and Content; submit is enabled once the form is valid. */
export function TextTab({ collectionId, onDone, onBusy }: { collectionId: number; onDone: () => void; onBusy: (busy: boolean) => void }) {
  const form = useForm<TKnowledgeTextForm>({ resolver: zodResolver(ZKnowledgeTextForm), defaultValues: { name: '', description: '', content: '' }, mode: 'onChange' });
  const progress = useCreepingProgress();
  const [error, setError] = useState<string | null>(null);
  const busy = progress.state === 'normal';

  const submit = form.handleSubmit(async (values) => {
    setError(null);
    progress.start();
    onBusy(true);
    try {
      const item = await createKnowledge({ collection_id: collectionId, knowledge_type: 'text', name: values.name, description: values.description || null, content: values.content });
      const [settled] = await waitForItems(collectionId, [item.id], () => undefined);
      if (settled?.status === 'ready') {
        progress.finish('success');
        setTimeout(onDone, KnowledgeLimits.progressSuccessDelayMs);
      } else {
        setError(settled?.status_reason ?? KnowledgeMessages.textProcessFailed);
        progress.finish('error');
      }
    } catch (err) {
      setError(errorMessages(err).join(' ') || KnowledgeMessages.textProcessFailed);
      progress.finish('error');
    } finally {
      onBusy(false);
    }
  });

  return (
    <Box component="form" noValidate onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
      <FormTextField control={form.control} name="name" label="Name" disabled={busy} autoFocus />
      <FormTextField control={form.control} name="description" label="Description (optional)" disabled={busy} />
      <FormTextField control={form.control} name="content" label="Content" multiline minRows={8} maxRows={14} disabled={busy} placeholder="Paste or type the text your avatar should know. Lines starting with # become headings." />
      <SingleProgress state={progress.state} value={progress.value} label="Processing the text…" error={error} />
      <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button type="submit" variant="contained" disabled={!form.formState.isValid || busy || progress.state === 'success'} loading={busy}>
          Submit
        </Button>
      </Box>
    </Box>
  );
}
