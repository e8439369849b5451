import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { AnalyticsPaths, ZAnalyticsResponse, type TAnalytics, type TAnalyticsParams } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export const analyticsQueryKey = ['analytics'] as const;

/** GET /api/get_analytics (administrators: the admin path, every account's): the figures of a range. */
export async function getAnalytics(params: TAnalyticsParams, isAdmin: boolean): Promise<TAnalytics> {
  const query = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;
  return (await apiRequest(isAdmin ? AnalyticsPaths.adminGet : AnalyticsPaths.get, { query, schema: ZAnalyticsResponse })).analytics;
}

export function useAnalytics(params: TAnalyticsParams, isAdmin: boolean) {
  return useQuery({
    queryKey: [...analyticsQueryKey, params, isAdmin] as const,
    queryFn: () => getAnalytics(params, isAdmin),
    placeholderData: keepPreviousData,
    retry: false,
  });
}
