import { ZKnowledgeTokenResponse } from '@persona/contract';
import type { $ZodType } from 'zod/v4/core';
import { apiRequest, isApiError, type ApiRequestOptions } from '../../../lib/api-client';
import { authStore } from '../../../lib/auth-store';

/**
 * The knowledge calls (/knowledge…, /knowledge_collection…) take the short-lived JWT of
 * GET /api/token/jwt as their Bearer credential, not the session. The token is cached until a
 * minute before it expires, fetched again when a call answers 401, and dropped on sign-out.
 */
let cached: { token: string; expiresAt: number; sessionToken: string } | null = null;
let inflight: Promise<string> | null = null;

async function fetchToken(): Promise<string> {
  const sessionToken = authStore.getSession()?.token ?? '';
  const answer = await apiRequest('/api/token/jwt', { schema: ZKnowledgeTokenResponse });
  cached = { token: answer.jwtToken, expiresAt: Date.parse(answer.expiresAt), sessionToken };
  return answer.jwtToken;
}

export async function getKnowledgeToken(forceNew = false): Promise<string> {
  const sessionToken = authStore.getSession()?.token ?? '';
  if (!forceNew && cached && cached.sessionToken === sessionToken && cached.expiresAt - Date.now() > 60_000) return cached.token;
  inflight ??= fetchToken().finally(() => {
    inflight = null;
  });
  return inflight;
}

export function forgetKnowledgeToken(): void {
  cached = null;
}

export interface KnowledgeRequestOptions<T> extends Omit<ApiRequestOptions<T>, 'auth'> {
  schema?: $ZodType<T>;
}

/** A knowledge call with the JWT; on 401 once more with a fresh token. */
export async function knowledgeRequest<T = unknown>(path: string, options: KnowledgeRequestOptions<T> = {}): Promise<T> {
  const send = async (token: string) => {
    return apiRequest<T>(path, { ...options, auth: 'none', headers: { ...options.headers, Authorization: `Bearer ${token}` }, logoutOnUnauthorized: false });
  };
  try {
    return await send(await getKnowledgeToken());
  } catch (error) {
    if (isApiError(error) && error.status === 401) return send(await getKnowledgeToken(true));
    throw error;
  }
}
