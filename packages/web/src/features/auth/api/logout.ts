import { ZStatusAnswer } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { authStore } from '../../../lib/auth-store';

/** GET /api/logout: revokes the session on the server. */
export function logout(): Promise<unknown> {
  return apiRequest('/api/logout', { method: 'GET', schema: ZStatusAnswer });
}

/** Signs out: tells the server when there is a session, and clears everything locally even when that fails. */
export async function signOut(): Promise<void> {
  try {
    if (authStore.getSession()) await logout();
  } catch {
    // The local session is cleared regardless (spec section 4).
  } finally {
    authStore.clear();
  }
}
