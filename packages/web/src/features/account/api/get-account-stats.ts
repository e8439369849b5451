import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { ZAccountStatsResponse, type TAccountStatsQuery, type TAccountStatsResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { accountQueryKey } from './get-account-details';

/** GET /api/account_stats?startDate={ms}&endDate={ms}: minutes and calls per avatar in the range. */
export function getAccountStats({ startDate, endDate }: TAccountStatsQuery): Promise<TAccountStatsResponse> {
  return apiRequest('/api/account_stats', { query: { startDate, endDate }, schema: ZAccountStatsResponse });
}

export const accountStatsQueryOptions = (range: TAccountStatsQuery) =>
  queryOptions({
    queryKey: [...accountQueryKey, 'stats', range.startDate, range.endDate] as const,
    queryFn: () => getAccountStats(range),
    staleTime: 0,
    placeholderData: keepPreviousData,
  });

/** The billing report of the range last searched for (null: nothing searched yet). */
export function useAccountStats(range: TAccountStatsQuery | null) {
  return useQuery({
    ...accountStatsQueryOptions(range ?? { startDate: 0, endDate: 0 }),
    enabled: range !== null,
  });
}
