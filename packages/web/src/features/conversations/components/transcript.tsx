import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { ConversationLabels, type TConversationDetail, type TConversationTurn } from '@persona/contract';
import { Marked } from './snippet';
import { heardLabel, TurnDetails } from './turn-details';
import { formatClock, formatDuration, formatMs, formatStart, outcomeColor, outcomeLabel } from './format';

/** The session's facts, above its transcript. */
export function ConversationFacts({ conversation: c }: { conversation: TConversationDetail }) {
  const facts: [string, React.ReactNode][] = [
    ['Avatar', c.avatarName],
    ['Started', formatStart(c.startedAt)],
    ['Duration', formatDuration(c.durationSeconds)],
    ['Channel', c.hostOrigin ? `${ConversationLabels.channel[c.channel]} · ${c.hostOrigin}` : ConversationLabels.channel[c.channel]],
    ['Visitor', c.clientIp ? `${c.visitor} · ${c.clientIp}` : c.visitor],
    ['Locale', c.locale ?? '—'],
    ['Turns', String(c.turns)],
    ['Outcome', <Chip key="o" size="small" variant="outlined" color={outcomeColor[c.outcome]} label={outcomeLabel(c.outcome, c.endCode)} />],
    ['Voice-to-voice p50', formatMs(c.voiceP50Ms)],
  ];
  return (
    <Paper variant="outlined" component="section" aria-label="Conversation facts" sx={{ p: 2 }}>
      <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', sm: 'repeat(3, 1fr)', lg: 'repeat(5, 1fr)' }, gap: 2 }}>
        {facts.map(([label, value]) => (
          <Box key={label} sx={{ minWidth: 0 }}>
            <Typography component="dt" variant="body2" color="text.secondary">
              {label}
            </Typography>
            <Typography component="dd" sx={{ m: 0, fontWeight: 600, overflowWrap: 'anywhere' }}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
    </Paper>
  );
}

const latencyParts = (t: TConversationTurn): [string, number | null][] =>
  t.latency
    ? [
        ['End of speech', t.latency.endOfUtteranceMs],
        ['STT', t.latency.sttMs],
        ['First token', t.latency.llmFirstTokenMs],
        ['First audio', t.latency.ttsFirstByteMs],
        ['Voice to voice', t.latency.endToEndMs],
      ]
    : [];

/** Each turn with its time, who spoke, what was cut off and how much was heard, a spoken turn's latencies, and its details (ADR 102); `matches` (a search) marks its words. */
export function Transcript({ turns, matches }: { turns: readonly TConversationTurn[]; matches?: TConversationDetail['matches'] }) {
  const marked = new Map((matches ?? []).map((m) => [m.turn, m.parts]));
  if (turns.length === 0) {
    return (
      <Paper variant="outlined" sx={{ p: 3, textAlign: 'center' }}>
        <Typography color="text.secondary">Nothing was said in this conversation.</Typography>
      </Paper>
    );
  }
  return (
    <Paper variant="outlined" component="ol" aria-label="Transcript" sx={{ listStyle: 'none', m: 0, p: { xs: 1.5, sm: 2 }, display: 'grid', gap: 1.5 }}>
      {turns.map((t, i) => {
        const isVisitor = t.role === 'visitor';
        const parts = marked.get(i);
        return (
          <Box component="li" key={i} aria-current={parts ? 'true' : undefined} sx={{ display: 'flex', flexDirection: 'column', alignItems: isVisitor ? 'flex-end' : 'flex-start' }}>
            <Typography variant="caption" color="text.secondary" sx={{ mb: 0.25 }}>
              {isVisitor ? 'Visitor' : 'Avatar'} · {formatClock(t.at)}
            </Typography>
            <Box
              sx={{
                maxWidth: { xs: '92%', sm: '75%' },
                px: 1.5,
                py: 1,
                borderRadius: 2,
                bgcolor: isVisitor ? 'rgba(79, 70, 229, 0.08)' : 'background.default',
                border: 1,
                borderColor: parts ? 'warning.main' : isVisitor ? 'rgba(79, 70, 229, 0.2)' : 'divider',
                boxShadow: parts ? '0 0 0 1px rgba(234, 179, 8, 0.6)' : undefined,
                whiteSpace: 'pre-wrap',
                overflowWrap: 'anywhere',
              }}
            >
              <Typography variant="body1">{parts ? <Marked parts={parts} /> : t.text}</Typography>
              {t.interrupted ? (
                <Typography variant="body2" color="warning.dark" sx={{ mt: 0.5, fontStyle: 'italic' }}>
                  {heardLabel(t.detail, t.text.length)}
                </Typography>
              ) : null}
            </Box>
            {t.latency ? (
              <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mt: 0.5, justifyContent: isVisitor ? 'flex-end' : 'flex-start' }} aria-label="Latencies">
                {latencyParts(t).map(([label, ms]) => (
                  <Chip key={label} size="small" variant="outlined" label={`${label} ${formatMs(ms)}`} />
                ))}
              </Box>
            ) : null}
            <TurnDetails detail={t.detail} align={isVisitor ? 'flex-end' : 'flex-start'} />
          </Box>
        );
      })}
    </Paper>
  );
}
