import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZWithdrawPlanRequestResponse, type TPlanRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { accountQueryKey } from './get-account-details';

/** POST /api/account_upgrade_withdraw: withdraws the caller's pending plan request. */
export async function withdrawPlanRequest(): Promise<TPlanRequest> {
  return (await apiRequest('/api/account_upgrade_withdraw', { method: 'POST', body: {}, schema: ZWithdrawPlanRequestResponse })).request;
}

export function useWithdrawPlanRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: withdrawPlanRequest,
    onSettled: () => client.invalidateQueries({ queryKey: accountQueryKey }),
  });
}
