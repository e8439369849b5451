import { ConversationLabels, type TConversationOutcome } from '@persona/contract';

export function formatStart(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function formatClock(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** 0:42, 12:05, 1:02:09; a conversation going on has no duration yet. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export const outcomeColor: Record<TConversationOutcome, 'default' | 'success' | 'info' | 'warning' | 'error'> = {
  open: 'success',
  'hang-up': 'default',
  idle: 'default',
  limit: 'warning',
  'demo-end': 'info',
  error: 'error',
};

/** The outcome's label, with the code of an error ("Error · worker-lost"). */
export function outcomeLabel(outcome: TConversationOutcome, endCode: string | null): string {
  const label = ConversationLabels.outcome[outcome];
  return outcome === 'error' && endCode ? `${label} · ${endCode}` : label;
}
