import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZAccountInfoResponse, type TAccountDetails } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/account_info: the signed-in account's details, plan and pending plan request. */
export async function getAccountDetails(): Promise<TAccountDetails> {
  return (await apiRequest('/api/account_info', { schema: ZAccountInfoResponse })).accountDetails;
}

export const accountQueryKey = ['account'] as const;

export const accountDetailsQueryOptions = () =>
  queryOptions({ queryKey: [...accountQueryKey, 'details'] as const, queryFn: getAccountDetails, staleTime: 0 });

export function useAccountDetails() {
  return useQuery(accountDetailsQueryOptions());
}
