import { useMutation } from '@tanstack/react-query';
import { ZStatusAnswer, type TForgotPasswordRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/forgot_password {email}: the same answer whether or not the account exists. */
export function forgotPassword(body: TForgotPasswordRequest) {
  return apiRequest('/api/forgot_password', { method: 'POST', body, auth: 'app', schema: ZStatusAnswer });
}

export function useForgotPassword() {
  return useMutation({ mutationFn: forgotPassword });
}
