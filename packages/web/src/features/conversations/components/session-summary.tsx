import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { TConversationDetail } from '@persona/contract';
import { formatMs } from './format';

/**
 * Above the transcript (ADR 099): the avatar's model's summary of the ended session, and what the
 * visitor's page measured (first frame, A/V offset, dropped frames while the avatar spoke).
 */
export function SessionSummary({ conversation: c }: { conversation: TConversationDetail }) {
  const f = c.pageFigures;
  if (!c.summary && !f) return null;
  return (
    <Paper variant="outlined" component="section" aria-label="Summary" sx={{ p: 2, display: 'grid', gap: 1.5 }}>
      {c.summary ? (
        <Box>
          <Typography variant="overline" component="h2" color="text.secondary" sx={{ display: 'block', lineHeight: 1.6, mb: 0.5 }}>
            Summary
          </Typography>
          <Typography sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{c.summary}</Typography>
        </Box>
      ) : null}
      {f ? (
        <Box>
          <Typography variant="overline" component="h2" color="text.secondary" sx={{ display: 'block', lineHeight: 1.6, mb: 0.5 }}>
            Measured by the visitor's page
          </Typography>
          <Box component="dl" aria-label="Measured by the visitor's page" sx={{ m: 0, display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', sm: 'repeat(3, 1fr)' }, gap: 2 }}>
            {(
              [
                ['First frame', formatMs(f.firstFrameMs)],
                ['A/V offset', formatMs(f.avOffsetMs)],
                ['Dropped frames', f.droppedFrames === null ? '—' : f.droppedFrames.toLocaleString()],
              ] as const
            ).map(([label, value]) => (
              <Box key={label} sx={{ minWidth: 0 }}>
                <Typography component="dt" variant="body2" color="text.secondary">
                  {label}
                </Typography>
                <Typography component="dd" sx={{ m: 0, fontWeight: 600 }}>
                  {value}
                </Typography>
              </Box>
            ))}
          </Box>
        </Box>
      ) : null}
    </Paper>
  );
}
