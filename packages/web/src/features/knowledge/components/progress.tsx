import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { KnowledgeMessages, type TKnowledgeItem } from '@persona/contract';
import type { MultiProgressState, SingleProgressState } from '../hooks/use-creeping-progress';
import { StatusChip } from './status-chip';

function Bar({ value, color, label }: { value: number; color: 'primary' | 'success' | 'error' | 'warning'; label: string }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
      <LinearProgress variant="determinate" value={value} color={color} aria-label={label} sx={{ flex: 1, height: 8, borderRadius: 4 }} />
      <Typography variant="body2" sx={{ minWidth: 40, textAlign: 'right', fontVariantNumeric: 'tabular-nums' }}>
        {Math.round(value)}%
      </Typography>
    </Box>
  );
}

/** The single-item progress (text and file tabs). */
export function SingleProgress({ state, value, label, error }: { state: SingleProgressState; value: number; label: string; error?: string | null }) {
  if (state === 'idle') return null;
  const color = state === 'error' ? 'error' : state === 'success' ? 'success' : 'primary';
  return (
    <Box role="status" aria-live="polite" sx={{ display: 'grid', gap: 1.25, mt: 2 }}>
      <Bar value={value} color={color} label={label} />
      {state === 'normal' ? <Typography variant="body2" color="text.secondary">{label}</Typography> : null}
      {state === 'success' ? (
        <Alert severity="success" icon={<CheckCircleOutlineIcon />}>
          {KnowledgeMessages.overlaySuccess}
        </Alert>
      ) : null}
      {state === 'error' ? <Alert severity="error">{error ?? KnowledgeMessages.processingFailed}</Alert> : null}
    </Box>
  );
}

const overlayText: Record<Exclude<MultiProgressState, 'idle' | 'normal'>, string> = {
  success: KnowledgeMessages.overlaySuccess,
  partial: KnowledgeMessages.overlayPartial,
  error: KnowledgeMessages.overlayFailed,
};

/**
 * The multi-URL progress (url and crawl tabs): one row per URL with its state, the bar (capped at
 * 98% until every URL is done), and the outcome overlay with Retry / Retry Failed.
 */
export function MultiProgress({
  state,
  value,
  rows,
  onRetryFailed,
  onRetry,
  isRetrying,
  extra,
}: {
  state: MultiProgressState;
  value: number;
  rows: { key: string; url: string; item?: TKnowledgeItem; error?: string }[];
  onRetryFailed: () => void;
  onRetry: () => void;
  isRetrying: boolean;
  extra?: ReactNode;
}) {
  if (state === 'idle') return null;
  const color = state === 'error' ? 'error' : state === 'partial' ? 'warning' : state === 'success' ? 'success' : 'primary';
  return (
    <Box role="status" aria-live="polite" sx={{ position: 'relative', display: 'grid', gap: 1.5, mt: 2 }}>
      <Bar value={value} color={color} label="Processing URLs" />
      <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gap: 0.75, maxHeight: 220, overflowY: 'auto' }}>
        {rows.map((row) => (
          <Box component="li" key={row.key} sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
            <Typography variant="body2" sx={{ flex: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={row.url}>
              {row.url}
            </Typography>
            {row.item ? <StatusChip item={row.item} /> : <StatusChip item={{ status: 'failed', status_reason: row.error ?? null, chunk_count: 0 }} />}
          </Box>
        ))}
      </Box>
      {state !== 'normal' ? (
        <Alert
          severity={state === 'success' ? 'success' : state === 'partial' ? 'warning' : 'error'}
          icon={state === 'success' ? <CheckCircleOutlineIcon /> : state === 'partial' ? <WarningAmberIcon /> : <ErrorOutlineIcon />}
          action={
            state === 'partial' ? (
              <Button color="inherit" size="small" onClick={onRetryFailed} loading={isRetrying}>
                Retry Failed
              </Button>
            ) : state === 'error' ? (
              <Button color="inherit" size="small" onClick={onRetry} loading={isRetrying}>
                Retry
              </Button>
            ) : undefined
          }
        >
          <strong>{overlayText[state]}</strong>
          {state !== 'success' ? <div>{KnowledgeMessages.urlBatchFailed}</div> : null}
        </Alert>
      ) : null}
      {extra}
    </Box>
  );
}
