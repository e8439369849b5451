/** A date for people: '22 Nov 2026, 14:05' in the browser's locale and time zone, or the placeholder. */
export function formatDateTime(value: string | null | undefined, placeholder = '—'): string {
  if (!value) return placeholder;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return placeholder;
  return date.toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}
