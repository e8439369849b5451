import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import ForumOutlinedIcon from '@mui/icons-material/ForumOutlined';
import { AnalyticsMessages, ConversationLabels, type TAnalytics, type TAnalyticsParams } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { isAdmin as isAdminSession, useSession } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAnalytics } from '../api/get-analytics';
import { useAvatarNames } from '../api/list-avatar-names';
import { formatCount, formatDuration, formatMs } from '../components/format';

const DaysChart = lazy(async () => ({ default: (await import('../components/analytics-charts')).DaysChart }));
const LatencyChart = lazy(async () => ({ default: (await import('../components/analytics-charts')).LatencyChart }));

export const PERIODS = [7, 30, 90, 365] as const;
const DEFAULT_PERIOD = 30;

/** The last `days` days in the browser's zone, today included: [midnight `days − 1` days ago, tomorrow's midnight). */
export function periodParams(days: number, now: Date, avatarId?: string): TAnalyticsParams {
  const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - days + 1);
  return { from: start.toISOString(), to: end.toISOString(), utcOffset: String(-now.getTimezoneOffset()), ...(avatarId ? { avatarId } : {}) };
}

/** /analytics: the account's figures (administrators: every account's) over a period, per avatar or all. */
export function AnalyticsRoute() {
  useDocumentTitle('Analytics');
  const isAdmin = isAdminSession(useSession());
  const [params, setParams] = useSearchParams();
  const days = PERIODS.find((p) => String(p) === params.get('days')) ?? DEFAULT_PERIOD;
  const avatarId = isAdmin ? undefined : /^\d{1,10}$/.test(params.get('avatarId') ?? '') ? params.get('avatarId')! : undefined;
  const query = useMemo(() => periodParams(days, new Date(), avatarId), [days, avatarId]);
  const analytics = useAnalytics(query, isAdmin);
  const avatars = useAvatarNames(!isAdmin);
  const avatarName = avatarId ? avatars.data?.find((a) => String(a.id) === avatarId)?.name : undefined;
  const set = (key: 'days' | 'avatarId', value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const a = analytics.data;

  return (
    <PageContainer maxWidth="xl">
      <PageHeader
        title="Analytics"
        description={
          isAdmin
            ? "Every account's conversations in figures: how many, how long, how they ended and how fast the avatars answered."
            : avatarName
              ? `${avatarName}'s conversations in figures: how many, how long, how they ended and how fast it answered.`
              : 'Your conversations in figures: how many, how long, how they ended and how fast your avatars answered.'
        }
        actions={
          <Button component={RouterLink} to={avatarId ? `${paths.conversations}?avatarId=${avatarId}` : paths.conversations} variant="outlined" startIcon={<ForumOutlinedIcon />}>
            Conversations
          </Button>
        }
      />
      <Paper variant="outlined" sx={{ p: 2, mb: 2, display: 'flex', flexWrap: 'wrap', gap: 2 }}>
        {isAdmin ? null : (
          <TextField select size="small" label="Avatar" value={avatarId ?? ''} onChange={(e) => set('avatarId', e.target.value)} sx={{ minWidth: 220, flex: { xs: '1 1 100%', sm: '0 1 auto' } }}>
            <MenuItem value="">All avatars</MenuItem>
            {(avatars.data ?? []).map((av) => (
              <MenuItem key={av.id} value={String(av.id)}>
                {av.name}
              </MenuItem>
            ))}
          </TextField>
        )}
        <TextField select size="small" label="Period" value={String(days)} onChange={(e) => set('days', e.target.value === String(DEFAULT_PERIOD) ? '' : e.target.value)} sx={{ minWidth: 180, flex: { xs: '1 1 100%', sm: '0 1 auto' } }}>
          {PERIODS.map((p) => (
            <MenuItem key={p} value={String(p)}>
              Last {p} days
            </MenuItem>
          ))}
        </TextField>
      </Paper>
      {analytics.isPending ? (
        <Box role="status" aria-label="Loading analytics" sx={{ display: 'grid', gap: 2 }}>
          <Skeleton variant="rounded" height={96} />
          <Skeleton variant="rounded" height={280} />
        </Box>
      ) : analytics.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void analytics.refetch()}>
              Retry
            </Button>
          }
        >
          <AlertTitle>{AnalyticsMessages.loadFailed}</AlertTitle>
          {errorMessages(analytics.error).join(' ')}
        </Alert>
      ) : (
        <Figures a={a!} />
      )}
    </PageContainer>
  );
}

function Stat({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <Paper variant="outlined" component="section" aria-label={label} sx={{ p: 2, minWidth: 0 }}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography sx={{ fontSize: { xs: 22, sm: 26 }, fontWeight: 700, lineHeight: 1.3 }}>{value}</Typography>
      {detail ? (
        <Typography variant="caption" color="text.secondary">
          {detail}
        </Typography>
      ) : null}
    </Paper>
  );
}

function Section({ title, children, label }: { title: string; children: ReactNode; label?: string }) {
  return (
    <Paper variant="outlined" component="section" aria-label={label ?? title} sx={{ p: { xs: 1.5, sm: 2 }, minWidth: 0 }}>
      <Typography variant="h6" component="h2" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

const p95 = (v: number | null, format: (n: number | null) => string) => (v === null ? undefined : `p95 ${format(v)}`);

function Figures({ a }: { a: TAnalytics }) {
  const ended = a.outcomes.reduce((n, o) => n + o.count, 0);
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      {a.sessions === 0 ? <Alert severity="info">{AnalyticsMessages.empty}</Alert> : null}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(3, 1fr)', lg: 'repeat(6, 1fr)' } }}>
        <Stat label="Sessions" value={formatCount(a.sessions)} />
        <Stat label="Minutes" value={formatCount(a.minutes, 1)} />
        <Stat label="Turns per session" value={formatCount(a.turns.mean, 1)} detail={a.turns.p95 === null ? undefined : `p50 ${formatCount(a.turns.p50, 1)} · p95 ${formatCount(a.turns.p95, 1)}`} />
        <Stat label="Duration p50" value={formatDuration(a.durationSeconds.p50)} detail={a.durationSeconds.p95 === null ? undefined : `p90 ${formatDuration(a.durationSeconds.p90)} · p95 ${formatDuration(a.durationSeconds.p95)}`} />
        <Stat label="Voice to voice p50" value={formatMs(a.voice.endToEnd.p50)} detail={p95(a.voice.endToEnd.p95, formatMs)} />
        <Stat label="First frame p50" value={formatMs(a.page.firstFrame.p50)} detail={p95(a.page.firstFrame.p95, formatMs)} />
      </Box>
      <Section title="Sessions and minutes per day">
        <Box role="img" aria-label="Bar chart of sessions and minutes per day" sx={{ minWidth: 0 }}>
          <Suspense fallback={<Skeleton variant="rounded" height={240} />}>
            <DaysChart days={a.days} />
          </Suspense>
        </Box>
      </Section>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
        <Section title="How conversations ended">
          {a.outcomes.length === 0 ? (
            <Typography color="text.secondary">—</Typography>
          ) : (
            <Box component="ul" aria-label="Outcomes" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 1.25 }}>
              {a.outcomes.map((o) => (
                <Box component="li" key={o.outcome}>
                  <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
                    <Typography variant="body2">{ConversationLabels.outcome[o.outcome]}</Typography>
                    <Typography variant="body2" sx={{ fontWeight: 600 }}>
                      {o.count.toLocaleString()} · {Math.round((o.count / Math.max(1, ended)) * 100)}%
                    </Typography>
                  </Box>
                  <LinearProgress
                    aria-label={`${ConversationLabels.outcome[o.outcome]}: share of the conversations`}
                    variant="determinate"
                    value={(o.count / Math.max(1, ended)) * 100}
                    color={o.outcome === 'error' ? 'error' : o.outcome === 'limit' ? 'warning' : 'primary'}
                    sx={{ height: 6, borderRadius: 3 }}
                  />
                </Box>
              ))}
            </Box>
          )}
          {a.errorCodes.length > 0 ? (
            <Box sx={{ mt: 2 }}>
              <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
                Errors by code
              </Typography>
              <Box component="ul" aria-label="Errors by code" sx={{ m: 0, pl: 2.5 }}>
                {a.errorCodes.map((e) => (
                  <li key={e.code}>
                    <Typography variant="body2">
                      <code>{e.code}</code> · {e.count.toLocaleString()}
                    </Typography>
                  </li>
                ))}
              </Box>
            </Box>
          ) : null}
        </Section>
        <Section title="Voice latency by stage">
          {a.voice.endToEnd.count === 0 && a.voice.firstToken.count === 0 ? (
            <Typography color="text.secondary">No spoken turns in this period.</Typography>
          ) : (
            <>
              <Box role="img" aria-label="Bar chart of latency p50 and p95 by stage" sx={{ minWidth: 0 }}>
                <Suspense fallback={<Skeleton variant="rounded" height={260} />}>
                  <LatencyChart voice={a.voice} />
                </Suspense>
              </Box>
              <Typography variant="caption" color="text.secondary">
                {a.voice.endToEnd.count.toLocaleString()} spoken turns · voice to voice p50 {formatMs(a.voice.endToEnd.p50)}, p95 {formatMs(a.voice.endToEnd.p95)}
              </Typography>
            </>
          )}
        </Section>
      </Box>
      {a.questions ? <FrequentQuestions q={a.questions} /> : null}
      <Section title="Provider errors">
        {a.providerErrors.length === 0 ? (
          <Typography color="text.secondary">No provider failed in this period.</Typography>
        ) : (
          <Box component="ul" aria-label="Provider errors" sx={{ m: 0, pl: 2.5, display: 'grid', gap: 0.5 }}>
            {a.providerErrors.map((e) => (
              <li key={`${e.provider} ${e.phase}`}>
                <Typography variant="body2">
                  <code>{e.provider}</code> · {e.phase} · {e.count.toLocaleString()} {e.count === 1 ? 'failure' : 'failures'} in {e.sessions === 1 ? '1 session' : `${e.sessions.toLocaleString()} sessions`}
                </Typography>
              </li>
            ))}
          </Box>
        )}
      </Section>
      <Section title="Measured by the visitors' pages">
        <Box component="dl" sx={{ m: 0, display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' } }}>
          {(
            [
              ['First frame', a.page.firstFrame, formatMs],
              ['A/V offset', a.page.avOffset, formatMs],
              ['Dropped frames per session', a.page.droppedFrames, (n: number | null) => formatCount(n)],
            ] as const
          ).map(([label, p, format]) => (
            <Box key={label}>
              <Typography component="dt" variant="body2" color="text.secondary">
                {label}
              </Typography>
              <Box component="dd" sx={{ m: 0 }}>
                <Typography sx={{ fontWeight: 600 }}>{p.count === 0 ? '—' : `p50 ${format(p.p50)} · p95 ${format(p.p95)}`}</Typography>
                <Typography variant="caption" color="text.secondary">
                  {p.count === 1 ? '1 session' : `${p.count.toLocaleString()} sessions`}
                </Typography>
              </Box>
            </Box>
          ))}
        </Box>
      </Section>
    </Box>
  );
}

/** The most frequent visitor questions grouped by meaning (ADR 102), with other phrasings of each. */
function FrequentQuestions({ q }: { q: NonNullable<TAnalytics['questions']> }) {
  return (
    <Section title="Frequent questions">
      {!q.available ? (
        <Typography color="text.secondary">Questions are grouped by meaning with the knowledge base’s embedding model, which is off on this server.</Typography>
      ) : q.groups.length === 0 ? (
        <Typography color="text.secondary">No questions in this period.</Typography>
      ) : (
        <>
          <Box component="ol" aria-label="Frequent questions" sx={{ m: 0, pl: 3, display: 'grid', gap: 1 }}>
            {q.groups.map((g) => (
              <li key={g.text}>
                <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
                  {g.text}
                </Typography>
                <Typography variant="caption" color="text.secondary" sx={{ display: 'block', overflowWrap: 'anywhere' }}>
                  {g.count === 1 ? 'Asked once' : `Asked ${g.count.toLocaleString()} times`} in {g.sessions === 1 ? '1 session' : `${g.sessions.toLocaleString()} sessions`}
                  {g.variants.length ? ` · also “${g.variants.join('”, “')}”` : ''}
                </Typography>
              </li>
            ))}
          </Box>
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 1 }}>
            From the latest {q.sampled.toLocaleString()} visitor turns of the period.
          </Typography>
        </>
      )}
    </Section>
  );
}
