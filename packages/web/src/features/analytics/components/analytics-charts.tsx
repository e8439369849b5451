import { BarChart } from '@mui/x-charts/BarChart';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { TAnalytics } from '@persona/contract';
import { formatDay, formatMs } from './format';

/** Sessions and minutes per day, as bars (like the billing chart). Loaded on demand: the chart library is large. */
export function DaysChart({ days }: { days: TAnalytics['days'] }) {
  const theme = useTheme();
  const isPhone = useMediaQuery(theme.breakpoints.down('sm'));
  return (
    <BarChart
      height={isPhone ? 220 : 260}
      grid={{ horizontal: true }}
      margin={{ right: 8, left: 0 }}
      xAxis={[{ scaleType: 'band', data: days.map((d) => d.day), valueFormatter: (day: string) => formatDay(day), categoryGapRatio: 0.25 }]}
      yAxis={[
        { id: 'sessions', label: isPhone ? undefined : 'Sessions', min: 0, tickMinStep: 1, width: isPhone ? 32 : 56 },
        { id: 'minutes', label: isPhone ? undefined : 'Minutes', min: 0, position: 'right', width: isPhone ? 36 : 56 },
      ]}
      series={[
        { data: days.map((d) => d.sessions), label: 'Sessions', yAxisId: 'sessions', color: theme.palette.primary.main },
        {
          data: days.map((d) => d.minutes),
          label: 'Minutes',
          yAxisId: 'minutes',
          color: theme.palette.secondary.main,
          valueFormatter: (v) => (v === null ? '' : `${v.toLocaleString(undefined, { maximumFractionDigits: 1 })} min`),
        },
      ]}
      borderRadius={4}
    />
  );
}

const STAGES = [
  ['endOfSpeech', 'End of speech'],
  ['stt', 'STT'],
  ['firstToken', 'First token'],
  ['firstAudio', 'First audio'],
  ['endToEnd', 'Voice to voice'],
] as const;

/** Voice-to-voice latency and its stages, p50 and p95, as horizontal bars. */
export function LatencyChart({ voice }: { voice: TAnalytics['voice'] }) {
  const theme = useTheme();
  const isPhone = useMediaQuery(theme.breakpoints.down('sm'));
  return (
    <BarChart
      layout="horizontal"
      height={isPhone ? 300 : 280}
      grid={{ vertical: true }}
      // Room on the right for the last tick's label (1,800 or 2,000 ms).
      margin={{ right: 28, left: 4 }}
      yAxis={[{ scaleType: 'band', data: STAGES.map(([, label]) => label), width: isPhone ? 108 : 116, categoryGapRatio: 0.3 }]}
      xAxis={[{ label: 'Milliseconds', min: 0, tickNumber: isPhone ? 4 : 8 }]}
      series={[
        { data: STAGES.map(([k]) => voice[k].p50), label: 'p50', color: theme.palette.primary.main, valueFormatter: (v) => formatMs(v) },
        { data: STAGES.map(([k]) => voice[k].p95), label: 'p95', color: theme.palette.warning.main, valueFormatter: (v) => formatMs(v) },
      ]}
      borderRadius={4}
    />
  );
}
