import type { TAccountStatsResponse } from '@persona/contract';

const HEADER = ['#', 'Avatar Name', 'Avatar ID', 'Total Duration (minutes)', 'Total Call Count'];

function cell(value: string | number): string {
  const text = String(value);
  // Quote what would break the row, and neutralise spreadsheet formulas in names.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The billing table as CSV: a header, one row per avatar and the Σ totals row. */
export function billingCsv({ billingData, cummulativeData }: TAccountStatsResponse): string {
  const rows: (string | number)[][] = [
    HEADER,
    ...billingData.map((row, index) => [index + 1, row.avatarName, row.avatarId, row.totalCallDuration, row.totalCallCount]),
    ['Σ', 'Total', '', cummulativeData.totalCallDuration, cummulativeData.totalCallCount],
  ];
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** Lets the browser save `text` as a file. */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob(['\uFEFF', text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
