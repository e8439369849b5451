import { ZLoginResponse, type TLoginRequest, type TLoginResponse } from '@persona/contract';
import { ApiError, apiRequest } from '../../../lib/api-client';
import { authStore, type TAuthSession } from '../../../lib/auth-store';
import { useAction } from '../../../lib/use-action';

/** POST /api/login with e-mail + password, or e-mail + adminSessionId (admin login-as). */
export function login(body: TLoginRequest): Promise<TLoginResponse> {
  return apiRequest('/api/login', {
    method: 'POST',
    body,
    auth: 'app',
    logoutOnUnauthorized: false,
    schema: ZLoginResponse,
  });
}

export function sessionFromLoginResponse(answer: TLoginResponse): TAuthSession {
  const { sessionId, expiryDate, userName, userType, adminProxy } = answer;
  if (!sessionId || !expiryDate || !userType) {
    throw new ApiError({ kind: 'invalid-response', message: 'The sign-in answer is incomplete.', status: 200, statusText: 'OK', body: answer });
  }
  return { token: sessionId, expiryDate, userName: userName ?? '', userType, adminProxy: adminProxy ?? false };
}

export interface SignInInput {
  request: TLoginRequest;
  /** Remember me: keep the session in localStorage; otherwise only for this tab. */
  isPersistent: boolean;
}

/** Signs in and stores the session. */
export async function signIn({ request, isPersistent }: SignInInput): Promise<TAuthSession> {
  const session = sessionFromLoginResponse(await login(request));
  authStore.setSession(session, { isPersistent });
  return session;
}

/** Sign-in as an action hook (not useMutation: the sign-in page does not load TanStack Query). */
export function useSignIn() {
  return useAction(signIn);
}
