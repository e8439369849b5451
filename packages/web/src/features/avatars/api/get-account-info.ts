import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TAccountDetails } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** The lists the creator reads from account_info.lists (spec "Account info used by the creator"). */
export interface TCreatorLists {
  vadOptions?: Record<string, number>;
  realtimeVadOptions?: Record<string, number>;
  interruptOptions?: Record<string, number | boolean>;
  [key: string]: unknown;
}

export type TCreatorAccount = TAccountDetails & { lists?: TCreatorLists };

interface AccountInfoAnswer {
  status: 'OK';
  accountDetails: TCreatorAccount;
}

/** GET /api/account_info: plan, catalogue URLs, encryption keys and the creator's lists. */
export async function getAccountInfo(): Promise<TCreatorAccount> {
  const answer = await apiRequest<AccountInfoAnswer>('/api/account_info');
  return answer.accountDetails;
}

export const accountInfoQueryOptions = () =>
  queryOptions({ queryKey: ['avatars', 'account-info'], queryFn: getAccountInfo, staleTime: 60_000 });

export function useAccountInfo() {
  return useQuery(accountInfoQueryOptions());
}
