import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZAccountUpgradeResponse, type TAccountUpgradeRequest, type TPlanRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { accountQueryKey } from './get-account-details';

/** POST /api/account_upgrade {subType, dhType}: records a plan change for an administrator to confirm. */
export async function requestPlanChange({ subType, dhType = 2 }: TAccountUpgradeRequest): Promise<TPlanRequest> {
  return (await apiRequest('/api/account_upgrade', { method: 'POST', body: { subType, dhType }, schema: ZAccountUpgradeResponse })).request;
}

export function useRequestPlanChange() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: requestPlanChange,
    // Success or a refusal (e.g. a request already pending): either way the details may have moved on.
    onSettled: () => client.invalidateQueries({ queryKey: accountQueryKey }),
  });
}
