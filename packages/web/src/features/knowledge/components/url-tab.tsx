import { useEffect } from 'react';
import { Controller, useFieldArray, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import TextField from '@mui/material/TextField';
import AddIcon from '@mui/icons-material/Add';
import RemoveCircleOutlineIcon from '@mui/icons-material/RemoveCircleOutlineOutlined';
import { KnowledgeLimits, ZKnowledgeUrlForm, type TCreateKnowledge, type TKnowledgeUrlForm } from '@persona/contract';
import { useUrlBatch } from '../hooks/use-url-batch';
import { FormTextField } from './fields';
import { MultiProgress } from './progress';

const shortUrl = (url: string) => url.replace(/^https?:\/\//, '').replace(/\/$/, '');

/** Names of a batch: the name alone for one URL, else the name and each page. */
export const itemNameFor = (name: string, url: string, count: number) => (count === 1 ? name : `${name} — ${shortUrl(url)}`).slice(0, KnowledgeLimits.nameMax);

/** The Url tab: Name, Description and URL rows (each starts as 'https://'); one item per URL. */
export function UrlTab({ collectionId, onSettled, onBusy }: { collectionId: number; onSettled: () => void; onBusy: (busy: boolean) => void }) {
  const form = useForm<TKnowledgeUrlForm>({ resolver: zodResolver(ZKnowledgeUrlForm), defaultValues: { name: '', description: '', urls: [{ url: 'https://' }] }, mode: 'onTouched' });
  const rows = useFieldArray({ control: form.control, name: 'urls' });
  const batch = useUrlBatch(collectionId, onSettled);
  useEffect(() => onBusy(batch.isBusy), [batch.isBusy, onBusy]);
  const locked = batch.isBusy || batch.progress.state !== 'idle';

  const submit = form.handleSubmit(async (values) => {
    const requests: TCreateKnowledge[] = values.urls.map(({ url }) => ({
      collection_id: collectionId,
      knowledge_type: 'url',
      name: itemNameFor(values.name, url, values.urls.length),
      description: values.description || null,
      url,
    }));
    await batch.submit(requests, (r) => ('url' in r ? String(r.url) : ''));
  });

  return (
    <Box component="form" noValidate onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
      <FormTextField control={form.control} name="name" label="Name" disabled={locked} />
      <FormTextField control={form.control} name="description" label="Description (optional)" disabled={locked} />
      <Box sx={{ display: 'grid', gap: 1.5 }}>
        {rows.fields.map((row, index) => (
          <Box key={row.id} sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
            <Controller
              control={form.control}
              name={`urls.${index}.url`}
              render={({ field, fieldState }) => (
                <TextField {...field} label={`URL ${index + 1}`} fullWidth disabled={locked} error={fieldState.invalid} helperText={fieldState.error?.message} inputMode="url" autoComplete="off" />
              )}
            />
            {rows.fields.length > 1 ? (
              <IconButton aria-label={`Remove URL ${index + 1}`} onClick={() => rows.remove(index)} disabled={locked} sx={{ mt: 1 }}>
                <RemoveCircleOutlineIcon />
              </IconButton>
            ) : null}
          </Box>
        ))}
        <Box>
          <Button startIcon={<AddIcon />} onClick={() => rows.append({ url: 'https://' })} disabled={locked || rows.fields.length >= KnowledgeLimits.batchMax}>
            Add URL
          </Button>
        </Box>
      </Box>
      {batch.error ? <Alert severity="error">{batch.error}</Alert> : null}
      <MultiProgress
        state={batch.progress.state}
        value={batch.progress.value}
        rows={batch.rows}
        onRetryFailed={() => void batch.retryFailed()}
        onRetry={() => void batch.retryFailed()}
        isRetrying={batch.isBusy}
      />
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', gap: 1 }}>
        {batch.progress.state !== 'idle' && !batch.isBusy ? (
          <Button
            onClick={() => {
              batch.reset();
              form.reset({ name: '', description: '', urls: [{ url: 'https://' }] });
            }}
          >
            Add more
          </Button>
        ) : null}
        {/* Never disabled for invalid rows: a click either sends or says what is wrong (a row's
            validity can lag a click made straight from typing, which then did nothing). */}
        <Button type="submit" variant="contained" disabled={locked} loading={batch.isBusy && batch.progress.state === 'normal'}>
          Submit
        </Button>
      </Box>
    </Box>
  );
}
