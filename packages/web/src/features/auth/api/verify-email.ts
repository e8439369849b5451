import { queryOptions, useQuery } from '@tanstack/react-query';
import { safeParse } from 'zod/mini';
import { ZEmailVerificationResponse, type TEmailVerificationResponse } from '@persona/contract';
import { apiRequest, isApiError } from '../../../lib/api-client';

/** POST /api/email_verification {verificationCode, mode:'verify'}. */
export function verifyEmail(verificationCode: string): Promise<TEmailVerificationResponse> {
  return apiRequest('/api/email_verification', {
    method: 'POST',
    body: { verificationCode, mode: 'verify' },
    auth: 'app',
    schema: ZEmailVerificationResponse,
  });
}

/** The FAIL answer's title and message, when the server sent them. */
export function verificationFailure(error: unknown): TEmailVerificationResponse | null {
  if (!isApiError(error)) return null;
  const parsed = safeParse(ZEmailVerificationResponse, error.body);
  return parsed.success ? parsed.data : null;
}

export const verifyEmailQueryOptions = (verificationCode: string) =>
  queryOptions({
    queryKey: ['auth', 'email-verification', verificationCode],
    queryFn: () => verifyEmail(verificationCode),
    // A code is single-use: verify once per page visit, never again in the background.
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });

export function useVerifyEmail(verificationCode: string) {
  return useQuery(verifyEmailQueryOptions(verificationCode));
}
