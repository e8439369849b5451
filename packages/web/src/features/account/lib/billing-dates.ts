import { AccountMessages, type TAccountStatsQuery } from '@persona/contract';

/** Billing report dates as the date inputs hold them: 'YYYY-MM-DD' in the browser's time zone. */

const pad = (n: number) => String(n).padStart(2, '0');

export function toDateInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Local midnight of a 'YYYY-MM-DD' value, or null when it is not a date. */
export function parseDateInput(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return null;
  return date;
}

export interface BillingRange {
  start: string;
  end: string;
}

/** The default range (spec section 9): last month up to today. */
export function defaultBillingRange(now: Date = new Date()): BillingRange {
  const start = new Date(now.getFullYear(), now.getMonth() - 1, now.getDate());
  // 31 March minus a month is 3 March in JavaScript: keep the last day of February instead.
  if (start.getMonth() !== (now.getMonth() + 11) % 12) start.setDate(0);
  return { start: toDateInput(start), end: toDateInput(now) };
}

export interface BillingRangeErrors {
  start?: string;
  end?: string;
}

export const INVALID_DATE = 'Enter a valid date.';

/** Spec section 5: start after end is refused; no date may pass today. */
export function validateBillingRange({ start, end }: BillingRange, now: Date = new Date()): BillingRangeErrors {
  const errors: BillingRangeErrors = {};
  const startDate = parseDateInput(start);
  const endDate = parseDateInput(end);
  const today = toDateInput(now);
  if (!startDate) errors.start = INVALID_DATE;
  else if (start > today) errors.start = AccountMessages.dateInFuture;
  if (!endDate) errors.end = INVALID_DATE;
  else if (end > today) errors.end = AccountMessages.dateInFuture;
  if (!errors.start && !errors.end && start > end) errors.start = AccountMessages.startAfterEnd;
  return errors;
}

export function hasErrors(errors: BillingRangeErrors): boolean {
  return Boolean(errors.start ?? errors.end);
}

/** The query for account_stats: from the start day's first millisecond to the end day's last one. */
export function rangeToQuery({ start, end }: BillingRange): TAccountStatsQuery {
  const startDate = parseDateInput(start)!;
  const endDate = parseDateInput(end)!;
  const endOfDay = new Date(endDate.getFullYear(), endDate.getMonth(), endDate.getDate() + 1).getTime() - 1;
  return { startDate: startDate.getTime(), endDate: endOfDay };
}
