/**
 * Admin login-as across two tabs, with no credential in any URL: the Users page opens
 * /react/login-as in a new tab, which says it is ready; the Users page answers with a one-time
 * ticket (POST /api/admin/users/login_as) by postMessage to that tab only, and the tab redeems it
 * in the body of POST /api/login. Both sides accept messages from their own origin only, and only
 * from the window they expect (the tab they opened; the window that opened them).
 */
export const LoginAsMessage = {
  ready: 'persona:login-as:ready',
  ticket: 'persona:login-as:ticket',
  failed: 'persona:login-as:failed',
} as const;

export type LoginAsHandover =
  | { type: typeof LoginAsMessage.ticket; email: string; ticket: string }
  | { type: typeof LoginAsMessage.failed; errors: string[] };

export function isLoginAsHandover(data: unknown): data is LoginAsHandover {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  if (d.type === LoginAsMessage.ticket) return typeof d.email === 'string' && typeof d.ticket === 'string';
  if (d.type === LoginAsMessage.failed) return Array.isArray(d.errors) && d.errors.every((e) => typeof e === 'string');
  return false;
}

export const isLoginAsReady = (data: unknown) => typeof data === 'object' && data !== null && (data as { type?: unknown }).type === LoginAsMessage.ready;

/** How long either side waits for the other. */
export const LOGIN_AS_WAIT_MS = 20_000;
