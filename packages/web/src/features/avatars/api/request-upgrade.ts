import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TAccountUpgradeRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/account_upgrade {subType, dhType}: asks for a plan change (image avatars need PRO). */
export function requestUpgrade(body: TAccountUpgradeRequest) {
  return apiRequest<{ status: 'OK' }>('/api/account_upgrade', { method: 'POST', body });
}

export function useRequestUpgrade() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: requestUpgrade,
    onSuccess: () => client.invalidateQueries({ queryKey: ['avatars', 'account-info'] }),
  });
}
