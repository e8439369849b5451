import { QueryClient } from '@tanstack/react-query';
import { isApiError } from './api-client';
import { authStore } from './auth-store';

/** Retries only what may succeed on a second try: no answer, or a 5xx; never a 4xx. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 2) return false;
  if (!isApiError(error)) return false;
  return error.kind === 'network' || error.kind === 'timeout' || error.status >= 500;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}

export const queryClient = createQueryClient();

/** Forgets every cached answer. */
export function clearUserQueries(client: QueryClient = queryClient): void {
  client.removeQueries();
  client.getMutationCache().clear();
}

/** Whenever the session changes hands (sign-in, sign-out, 401, expiry, another tab), the cache is dropped. */
export function clearQueriesOnSessionChange(client: QueryClient = queryClient): () => void {
  let token = authStore.getSession()?.token ?? null;
  return authStore.subscribe(() => {
    const next = authStore.getSession()?.token ?? null;
    if (next !== token) clearUserQueries(client);
    token = next;
  });
}

clearQueriesOnSessionChange();
