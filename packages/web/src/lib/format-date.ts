/** A date for people ('Nov 22, 2026, 2:05 PM' in en-US), in the browser's locale and time zone, or the placeholder. */
export function formatDateTime(value: string | null | undefined, placeholder = '—'): string {
  if (!value) return placeholder;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return placeholder;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
