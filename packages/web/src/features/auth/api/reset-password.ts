import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { ZResetPasswordResponse, type TResetPasswordResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/reset_password {resetToken, mode:'validate'}: OK with the account's e-mail, or FAIL with errors. */
export function validateResetToken(resetToken: string): Promise<TResetPasswordResponse> {
  return apiRequest('/api/reset_password', {
    method: 'POST',
    body: { resetToken, mode: 'validate' },
    auth: 'app',
    schema: ZResetPasswordResponse,
  });
}

export interface ResetPasswordInput {
  resetToken: string;
  newPassword: string;
}

/** POST /api/reset_password {resetToken, newPassword, mode:'reset'}. */
export function resetPassword({ resetToken, newPassword }: ResetPasswordInput): Promise<TResetPasswordResponse> {
  return apiRequest('/api/reset_password', {
    method: 'POST',
    body: { resetToken, newPassword, mode: 'reset' },
    auth: 'app',
    schema: ZResetPasswordResponse,
  });
}

export const resetTokenQueryOptions = (resetToken: string) =>
  queryOptions({
    queryKey: ['auth', 'reset-token', resetToken],
    queryFn: () => validateResetToken(resetToken),
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });

export function useResetTokenValidity(resetToken: string, isEnabled: boolean) {
  return useQuery({ ...resetTokenQueryOptions(resetToken), enabled: isEnabled });
}

export function useResetPassword() {
  return useMutation({ mutationFn: resetPassword });
}
