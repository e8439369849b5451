import { lazy, Suspense, useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableFooter from '@mui/material/TableFooter';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import DownloadIcon from '@mui/icons-material/Download';
import SearchIcon from '@mui/icons-material/Search';
import { AccountMessages, type TAccountStatsQuery, type TAccountStatsResponse } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { useAccountStats } from '../api/get-account-stats';
import { billingCsv, downloadText } from '../lib/billing-csv';
import {
  defaultBillingRange,
  hasErrors,
  rangeToQuery,
  toDateInput,
  validateBillingRange,
  type BillingRange,
  type BillingRangeErrors,
} from '../lib/billing-dates';
import { CHART_MAX_AVATARS } from './billing-chart-limits';

const BillingChart = lazy(async () => ({ default: (await import('./billing-chart')).BillingChart }));

const minutes = (value: number) => value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = (value: number) => value.toLocaleString();

const formatDay = (value: string) =>
  new Date(`${value}T00:00:00`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });

/** The 'Billing Report' area: date range, Search, the table with its Σ totals row, a chart and a CSV download. */
export function BillingReport() {
  const [range, setRange] = useState<BillingRange>(() => defaultBillingRange());
  const [errors, setErrors] = useState<BillingRangeErrors>({});
  const [searched, setSearched] = useState<{ range: BillingRange; query: TAccountStatsQuery }>(() => ({
    range,
    query: rangeToQuery(range),
  }));
  const stats = useAccountStats(searched.query);
  const today = toDateInput(new Date());

  const change = (field: keyof BillingRange, value: string) => {
    const next = { ...range, [field]: value };
    setRange(next);
    setErrors(validateBillingRange(next));
  };

  const search = (event: FormEvent) => {
    event.preventDefault();
    const found = validateBillingRange(range);
    setErrors(found);
    if (hasErrors(found)) return;
    const query = rangeToQuery(range);
    if (query.startDate === searched.query.startDate && query.endDate === searched.query.endDate) void stats.refetch();
    else setSearched({ range, query });
  };

  const data = stats.data;
  return (
    <Paper variant="outlined" component="section" aria-labelledby="billing-title" sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap', mb: 2 }}>
        <Box>
          <Typography id="billing-title" variant="h4" component="h2">
            Billing Report
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Minutes and calls per avatar from {formatDay(searched.range.start)} to {formatDay(searched.range.end)}.
          </Typography>
        </Box>
        <Button
          variant="outlined"
          startIcon={<DownloadIcon />}
          disabled={!data || stats.isError}
          onClick={() => data && downloadText(`billing-${searched.range.start}-to-${searched.range.end}.csv`, billingCsv(data))}
        >
          Download CSV
        </Button>
      </Box>

      <Box
        component="form"
        noValidate
        onSubmit={search}
        aria-label="Billing period"
        sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', sm: '1fr 1fr auto' }, gap: 1.5, alignItems: 'start', mb: 2.5 }}
      >
        <TextField
          label="Start date"
          type="date"
          size="small"
          value={range.start}
          onChange={(e) => change('start', e.target.value)}
          error={Boolean(errors.start)}
          helperText={errors.start}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: range.end && range.end < today ? range.end : today } }}
        />
        <TextField
          label="End date"
          type="date"
          size="small"
          value={range.end}
          onChange={(e) => change('end', e.target.value)}
          error={Boolean(errors.end)}
          helperText={errors.end}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: today, min: range.start || undefined } }}
        />
        <Button
          type="submit"
          variant="contained"
          startIcon={<SearchIcon />}
          loading={stats.isFetching}
          disabled={hasErrors(errors)}
          sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' }, height: 40 }}
        >
          Search
        </Button>
      </Box>

      {stats.isPending ? (
        <Box sx={{ display: 'grid', gap: 1 }} role="status" aria-label="Loading billing data">
          <Skeleton variant="rounded" height={40} />
          <Skeleton variant="rounded" height={40} />
          <Skeleton variant="rounded" height={40} />
        </Box>
      ) : stats.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void stats.refetch()}>
              Retry
            </Button>
          }
        >
          <AlertTitle>{AccountMessages.billingLoadFailed}</AlertTitle>
          {errorMessages(stats.error).join(' ')}
        </Alert>
      ) : (
        <Box sx={{ position: 'relative' }}>
          {stats.isFetching ? <LinearProgress sx={{ position: 'absolute', top: 0, left: 0, right: 0, zIndex: 1 }} aria-label="Refreshing" /> : null}
          <BillingTable data={data!} />
          {data!.billingData.length > 0 ? (
            <Box sx={{ mt: 3 }}>
              <Typography variant="h5" component="h3" sx={{ mb: 0.5 }}>
                Minutes per avatar
              </Typography>
              {data!.billingData.length > CHART_MAX_AVATARS ? (
                <Typography variant="body2" color="text.secondary">
                  The {CHART_MAX_AVATARS} avatars with the most minutes.
                </Typography>
              ) : null}
              <Box role="img" aria-label="Bar chart of minutes per avatar" sx={{ minWidth: 0 }}>
                <Suspense fallback={<Skeleton variant="rounded" height={160} />}>
                  <BillingChart rows={data!.billingData} />
                </Suspense>
              </Box>
            </Box>
          ) : null}
        </Box>
      )}
    </Paper>
  );
}

function BillingTable({ data }: { data: TAccountStatsResponse }) {
  const theme = useTheme();
  // Phones: the avatar ID goes under the name so the four numbers fit without scrolling sideways.
  const isPhone = useMediaQuery(theme.breakpoints.down('sm'));
  const columns = isPhone ? 4 : 5;
  const cellSx = { whiteSpace: 'nowrap' } as const;
  return (
    <TableContainer sx={{ border: 1, borderColor: 'divider', borderRadius: 2, overflowX: 'auto' }}>
      <Table
        size="small"
        aria-label="Billing report"
        sx={{ '& th': { fontWeight: 700, lineHeight: 1.3 }, ...(isPhone ? { '& td, & th': { px: 1 }, '& td:first-of-type, & th:first-of-type': { pl: 1.5 } } : {}) }}
      >
        <TableHead sx={{ bgcolor: 'rgba(79, 70, 229, 0.04)' }}>
          <TableRow>
            <TableCell sx={{ width: 40 }}>#</TableCell>
            <TableCell>Avatar Name</TableCell>
            {isPhone ? null : <TableCell sx={cellSx}>Avatar ID</TableCell>}
            <TableCell align="right">Total Duration (minutes)</TableCell>
            <TableCell align="right">Total Call Count</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {data.billingData.length === 0 ? (
            <TableRow>
              <TableCell colSpan={columns} align="center" sx={{ py: 4, color: 'text.secondary' }}>
                No calls in this period.
              </TableCell>
            </TableRow>
          ) : (
            data.billingData.map((row, index) => (
              <TableRow key={row.avatarId} hover>
                <TableCell>{index + 1}</TableCell>
                <TableCell sx={{ overflowWrap: 'anywhere', minWidth: isPhone ? 0 : 110 }}>
                  {row.avatarName}
                  {isPhone ? (
                    <Typography component="span" variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                      Avatar ID {row.avatarId}
                    </Typography>
                  ) : null}
                </TableCell>
                {isPhone ? null : <TableCell>{row.avatarId}</TableCell>}
                <TableCell align="right" sx={cellSx}>
                  {minutes(row.totalCallDuration)}
                </TableCell>
                <TableCell align="right">{count(row.totalCallCount)}</TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
        <TableFooter>
          <TableRow sx={{ bgcolor: 'rgba(17, 24, 39, 0.03)', '& td': { fontWeight: 700, color: 'text.primary', fontSize: '0.875rem', borderBottom: 0 } }}>
            <TableCell aria-label="Total">Σ</TableCell>
            <TableCell colSpan={columns - 3}>Total</TableCell>
            <TableCell align="right" sx={cellSx}>
              {minutes(data.cummulativeData.totalCallDuration)}
            </TableCell>
            <TableCell align="right">{count(data.cummulativeData.totalCallCount)}</TableCell>
          </TableRow>
        </TableFooter>
      </Table>
    </TableContainer>
  );
}
