import { useMutation } from '@tanstack/react-query';
import { ZStatusAnswer, type TRegisterRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/register: answers OK for any valid input (no account enumeration). */
export function register(body: TRegisterRequest) {
  return apiRequest('/api/register', { method: 'POST', body, auth: 'app', schema: ZStatusAnswer });
}

export function useRegister() {
  return useMutation({ mutationFn: register });
}
