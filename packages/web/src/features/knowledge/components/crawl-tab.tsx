import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Typography from '@mui/material/Typography';
import TravelExploreIcon from '@mui/icons-material/TravelExplore';
import { KnowledgeLimits, KnowledgeMessages, ZCrawlForm, type TCrawlForm, type TCrawledUrl, type TCreateKnowledge } from '@persona/contract';
import { isApiError } from '../../../lib/api-client';
import { crawlUrls } from '../api/crawl';
import { useUrlBatch } from '../hooks/use-url-batch';
import { FormTextField } from './fields';
import { MultiProgress } from './progress';

/** The Crawl tab: a site's URL, Crawl, then a choice of the pages found; one crawl item per page. */
export function CrawlTab({ collectionId, onSettled, onBusy }: { collectionId: number; onSettled: () => void; onBusy: (busy: boolean) => void }) {
  const form = useForm<TCrawlForm>({ resolver: zodResolver(ZCrawlForm), defaultValues: { url: 'https://' }, mode: 'onChange' });
  const [found, setFound] = useState<TCrawledUrl[] | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [crawling, setCrawling] = useState(false);
  const [crawlError, setCrawlError] = useState<string | null>(null);
  const batch = useUrlBatch(collectionId, onSettled);
  useEffect(() => onBusy(batch.isBusy || crawling), [batch.isBusy, crawling, onBusy]);
  const locked = crawling || batch.isBusy || batch.progress.state !== 'idle';

  const crawl = form.handleSubmit(async ({ url }) => {
    setCrawling(true);
    setCrawlError(null);
    setFound(null);
    try {
      const pages = await crawlUrls(url, KnowledgeLimits.crawlDefault);
      setFound(pages);
      setSelected(new Set(pages.map((p) => p.url)));
    } catch (error) {
      // The server's message when it sent one, else the spec's.
      setCrawlError(isApiError(error) && error.hasErrors ? error.errors.join(' ') : KnowledgeMessages.crawlError);
    } finally {
      setCrawling(false);
    }
  });

  const toggle = (url: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(url)) next.delete(url);
      else next.add(url);
      return next;
    });

  const submit = async () => {
    const pages = (found ?? []).filter((p) => selected.has(p.url));
    const requests: TCreateKnowledge[] = pages.map((p) => ({ collection_id: collectionId, knowledge_type: 'crawl', name: (p.title || p.url).slice(0, KnowledgeLimits.nameMax), url: p.url }));
    await batch.submit(requests, (r) => ('url' in r ? String(r.url) : ''));
  };

  const hint = found === null ? KnowledgeMessages.crawlNothingCrawled : selected.size === 0 ? KnowledgeMessages.crawlNoneSelected : null;
  const allSelected = found !== null && found.length > 0 && selected.size === found.length;

  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <Box component="form" noValidate onSubmit={crawl} sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
        <FormTextField control={form.control} name="url" label="Website URL" disabled={locked} autoFocus />
        <Button type="submit" variant="outlined" startIcon={<TravelExploreIcon />} loading={crawling} disabled={locked && !crawling} sx={{ mt: 1, flexShrink: 0 }}>
          Crawl
        </Button>
      </Box>
      <Typography variant="body2" color="text.secondary">
        Finds up to {KnowledgeLimits.crawlDefault} pages of the same site linked from this page (the site’s robots.txt is respected).
      </Typography>
      {crawlError ? <Alert severity="error">{crawlError}</Alert> : null}
      {found && batch.progress.state === 'idle' ? (
        <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 2, p: 1.5, display: 'grid', gap: 0.5 }}>
          <FormControlLabel
            control={<Checkbox checked={allSelected} indeterminate={selected.size > 0 && !allSelected} onChange={() => setSelected(allSelected ? new Set() : new Set(found.map((p) => p.url)))} />}
            label={<strong>{`Select all (${selected.size} of ${found.length} selected)`}</strong>}
          />
          <Box sx={{ maxHeight: 300, overflowY: 'auto', display: 'grid' }}>
            {found.map((p) => (
              <FormControlLabel
                key={p.url}
                sx={{ alignItems: 'flex-start', m: 0, minWidth: 0 }}
                control={<Checkbox size="small" checked={selected.has(p.url)} onChange={() => toggle(p.url)} sx={{ pt: 0.5 }} />}
                label={
                  <Box sx={{ minWidth: 0, py: 0.5 }}>
                    <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
                      {p.title}
                    </Typography>
                    <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                      {p.url}
                    </Typography>
                  </Box>
                }
              />
            ))}
          </Box>
        </Box>
      ) : null}
      {batch.error ? <Alert severity="error">{batch.error}</Alert> : null}
      <MultiProgress state={batch.progress.state} value={batch.progress.value} rows={batch.rows} onRetryFailed={() => void batch.retryFailed()} onRetry={() => void batch.retryFailed()} isRetrying={batch.isBusy} />
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', alignItems: 'center', gap: 2 }}>
        {hint && batch.progress.state === 'idle' ? (
          <Typography variant="body2" color="text.secondary" role="note">
            {hint}
          </Typography>
        ) : null}
        {batch.progress.state !== 'idle' && !batch.isBusy ? (
          <Button
            onClick={() => {
              batch.reset();
              setFound(null);
            }}
          >
            Crawl another site
          </Button>
        ) : null}
        <Button variant="contained" onClick={() => void submit()} disabled={selected.size === 0 || found === null || locked} loading={batch.isBusy && batch.progress.state === 'normal'}>
          Submit
        </Button>
      </Box>
    </Box>
  );
}
