/** A session's connect time (ms since 1970) for people, or the placeholder. */
export function formatTimestamp(value: number | string | null | undefined, placeholder = '—'): string {
  if (value === null || value === undefined || value === '' || value === 0) return placeholder;
  const date = new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
