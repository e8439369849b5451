import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import SearchIcon from '@mui/icons-material/Search';
import type { TSimilaritySearchResponse } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { similaritySearch } from '../api/similarity-search';

const MODE_LABEL = { fused: 'full-text + semantic (fused)', fulltext: 'full-text', vector: 'semantic' } as const;

/** "Try a question": runs the similarity search an avatar would run and shows the chunks found. */
/**
 * A fusion score means nothing to a person ("score 0.0328"): the first passage is the best match,
 * the others are told as a share of its relevance.
 */
export function relevanceLabel(score: number, topScore: number, index: number): string {
  if (index === 0) return 'Best match';
  const share = topScore > 0 ? Math.max(1, Math.min(100, Math.round((100 * score) / topScore))) : 0;
  return `${share}% as relevant as the best`;
}

export function TryQuestion({ collectionId, disabled }: { collectionId: number; disabled: boolean }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<TSimilaritySearchResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async () => {
    if (!query.trim()) return;
    setBusy(true);
    setError(null);
    try {
      setAnswer(await similaritySearch({ collection_ids: [collectionId], query: query.trim(), k: 5 }));
    } catch (err) {
      setAnswer(null);
      setError(errorMessages(err).join(' '));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box component="section" aria-labelledby="try-question-title" sx={{ display: 'grid', gap: 1.5 }}>
      <Typography id="try-question-title" variant="h6" component="h3">
        Try a question
      </Typography>
      <Typography variant="body2" color="text.secondary">
        Ask what a visitor might ask: these are the passages an avatar linked to this collection would answer from.
      </Typography>
      <Box
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
        sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}
      >
        <TextField value={query} onChange={(e) => setQuery(e.target.value)} label="Question" fullWidth size="small" disabled={disabled} slotProps={{ htmlInput: { maxLength: 1000 } }} />
        <Button type="submit" variant="outlined" startIcon={<SearchIcon />} loading={busy} disabled={disabled || !query.trim()} sx={{ flexShrink: 0, height: 40 }}>
          Search
        </Button>
      </Box>
      {error ? <Alert severity="error">{error}</Alert> : null}
      {answer ? (
        answer.data.length === 0 ? (
          <Typography color="text.secondary" role="status">
            Nothing in this collection matches that question yet.
          </Typography>
        ) : (
          <Box component="ol" aria-label="Chunks found" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gap: 1.25 }}>
            <Typography variant="caption" color="text.secondary" component="li">
              Search: {MODE_LABEL[answer.mode]}
            </Typography>
            {answer.data.map((hit, index) => (
              <Paper component="li" key={hit.chunk_id} variant="outlined" sx={{ p: 1.5, display: 'grid', gap: 0.75 }}>
                <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                  <Chip size="small" label={`#${index + 1}`} color="primary" variant="outlined" aria-label={`Rank ${index + 1}`} />
                  <Typography variant="body2" sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>
                    {hit.item_name}
                  </Typography>
                  {hit.heading ? (
                    <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                      › {hit.heading}
                    </Typography>
                  ) : null}
                  <Box sx={{ flex: 1 }} />
                  <Typography variant="caption" color="text.secondary" sx={{ fontVariantNumeric: 'tabular-nums' }} aria-label="Relevance">
                    {relevanceLabel(hit.score, answer.data[0]!.score, index)}
                  </Typography>
                </Box>
                <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxHeight: 160, overflowY: 'auto' }}>
                  {hit.text}
                </Typography>
                {hit.url ? (
                  <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                    Source: {hit.url}
                  </Typography>
                ) : null}
              </Paper>
            ))}
          </Box>
        )
      ) : null}
    </Box>
  );
}
