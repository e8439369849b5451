import { BarChart } from '@mui/x-charts/BarChart';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { TBillingRow } from '@persona/contract';
import { CHART_MAX_AVATARS } from './billing-chart-limits';

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Minutes per avatar as horizontal bars (the most used first). Loaded on demand: the chart library is large. */
export function BillingChart({ rows }: { rows: readonly TBillingRow[] }) {
  const theme = useTheme();
  const isPhone = useMediaQuery(theme.breakpoints.down('sm'));
  const shown = [...rows].sort((a, b) => b.totalCallDuration - a.totalCallDuration).slice(0, CHART_MAX_AVATARS);
  const names = new Map(shown.map((row) => [row.avatarId, row.avatarName]));
  return (
    <BarChart
      layout="horizontal"
      height={72 + shown.length * (isPhone ? 34 : 38)}
      hideLegend
      grid={{ vertical: true }}
      margin={{ right: 16, left: 4 }}
      yAxis={[
        {
          scaleType: 'band',
          data: shown.map((row) => row.avatarId),
          width: isPhone ? 96 : 160,
          categoryGapRatio: 0.35,
          valueFormatter: (id: number, context) => {
            const name = names.get(id) ?? String(id);
            return context.location === 'tick' ? shorten(name, isPhone ? 12 : 22) : `${name} (ID ${id})`;
          },
        },
      ]}
      xAxis={[{ label: 'Minutes', min: 0, tickMinStep: 1 }]}
      series={[
        {
          data: shown.map((row) => row.totalCallDuration),
          label: 'Total Duration (minutes)',
          color: theme.palette.primary.main,
          valueFormatter: (value) => (value === null ? '' : `${value.toLocaleString(undefined, { maximumFractionDigits: 2 })} min`),
        },
      ]}
      borderRadius={6}
    />
  );
}
