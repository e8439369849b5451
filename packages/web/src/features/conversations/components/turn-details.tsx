import { useId, useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Collapse from '@mui/material/Collapse';
import Typography from '@mui/material/Typography';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import type { TLiveTurnDetail } from '@persona/contract';
import { formatMs } from './format';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "2 functions · 3 passages · 1 correction": what the collapsed details hold. */
export function detailsLabel(d: TLiveTurnDetail): string | null {
  const parts: string[] = [];
  if (d.interims?.length) parts.push(plural(d.interims.length, 'correction', 'corrections'));
  if (d.calls?.length) parts.push(plural(d.calls.length, 'function', 'functions'));
  if (d.passages?.length) parts.push(plural(d.passages.length, 'passage', 'passages'));
  return parts.length ? parts.join(' · ') : null;
}

/** How much of an interrupted answer the visitor heard, when the worker measured it. */
export function heardLabel(d: TLiveTurnDetail | undefined, heardChars: number): string {
  if (d?.heardMs === undefined) return 'Interrupted: the visitor heard only this much.';
  const of = d.fullChars ? ` (${heardChars} of ${d.fullChars} characters)` : '';
  return `Interrupted after ${formatMs(d.heardMs)}: the visitor heard only this much${of}.`;
}

const mono = {
  m: 0,
  mt: 0.25,
  px: 1,
  py: 0.5,
  borderRadius: 1,
  bgcolor: 'action.hover',
  fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
  fontSize: 12,
  whiteSpace: 'pre-wrap',
  overflowWrap: 'anywhere',
  maxHeight: 160,
  overflow: 'auto',
} as const;

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Box component="section" aria-label={title} sx={{ minWidth: 0 }}>
      <Typography variant="overline" color="text.secondary" sx={{ lineHeight: 1.6, display: 'block' }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/**
 * Under a turn (ADR 102): its provider errors always shown; the recogniser's corrections, the
 * functions called with their arguments and results, and the knowledge passages the answer used
 * folded behind one button.
 */
export function TurnDetails({ detail, align }: { detail: TLiveTurnDetail | undefined; align: 'flex-start' | 'flex-end' }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  if (!detail) return null;
  const label = detailsLabel(detail);
  const errors = detail.errors ?? [];
  if (!label && errors.length === 0) return null;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: align, width: '100%', mt: 0.5 }}>
      {errors.length ? (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, justifyContent: align }} aria-label="Provider errors">
          {errors.map((e, i) => (
            <Chip key={i} size="small" color="error" variant="outlined" label={`${e.provider} · ${e.code}${e.phase ? ` (${e.phase})` : ''}`} />
          ))}
        </Box>
      ) : null}
      {label ? (
        <>
          <Button
            size="small"
            variant="text"
            aria-expanded={open}
            aria-controls={id}
            onClick={() => setOpen((o) => !o)}
            endIcon={<ExpandMoreIcon sx={{ transform: open ? 'rotate(180deg)' : undefined, transition: 'transform 150ms' }} />}
            sx={{ textTransform: 'none', px: 0.5, minWidth: 0, color: 'text.secondary' }}
          >
            {label}
          </Button>
          <Collapse in={open} unmountOnExit sx={{ width: { xs: '92%', sm: '75%' } }}>
            <Box id={id} sx={{ display: 'grid', gap: 1, p: 1.5, border: 1, borderColor: 'divider', borderRadius: 2, bgcolor: 'background.paper' }}>
              {detail.interims?.length ? (
                <Section title="Heard first as">
                  <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
                    {detail.interims.map((t, i) => (
                      <Typography key={i} component="li" variant="body2" color="text.secondary" sx={{ textDecoration: 'line-through', overflowWrap: 'anywhere' }}>
                        {t}
                      </Typography>
                    ))}
                  </Box>
                </Section>
              ) : null}
              {detail.calls?.length ? (
                <Section title="Functions">
                  <Box component="ol" sx={{ m: 0, p: 0, listStyle: 'none', display: 'grid', gap: 1 }}>
                    {detail.calls.map((c, i) => (
                      <Box component="li" key={i} sx={{ minWidth: 0 }}>
                        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                          <Typography variant="body2" sx={{ fontWeight: 600, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', overflowWrap: 'anywhere' }}>
                            {c.name}
                          </Typography>
                          <Chip size="small" color={c.ok ? 'success' : 'error'} variant="outlined" label={c.ok ? 'OK' : 'Failed'} />
                        </Box>
                        <Typography variant="caption" color="text.secondary">
                          Arguments
                        </Typography>
                        <Box component="pre" sx={mono}>
                          {c.arguments || '—'}
                        </Box>
                        <Typography variant="caption" color="text.secondary">
                          {c.ok ? 'Result' : 'Error'}
                        </Typography>
                        <Box component="pre" sx={mono}>
                          {c.result ?? '—'}
                        </Box>
                      </Box>
                    ))}
                  </Box>
                </Section>
              ) : null}
              {detail.passages?.length ? (
                <Section title="Knowledge used">
                  <Box component="ol" sx={{ m: 0, pl: 2.5, display: 'grid', gap: 0.5 }}>
                    {detail.passages.map((p, i) => (
                      <Box component="li" key={i} sx={{ minWidth: 0 }}>
                        <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
                          {p.title}
                        </Typography>
                        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                          {p.snippet}
                        </Typography>
                      </Box>
                    ))}
                  </Box>
                </Section>
              ) : null}
            </Box>
          </Collapse>
        </>
      ) : null}
    </Box>
  );
}
