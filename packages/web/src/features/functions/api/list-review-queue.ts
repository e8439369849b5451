import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZReviewQueueResponse, type TReviewFunction } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/admin/functions?status=: functions to moderate (all statuses when none is given). */
export async function listReviewQueue(status: number | undefined): Promise<TReviewFunction[]> {
  return (await apiRequest('/api/admin/functions', { query: { status }, schema: ZReviewQueueResponse })).functions;
}

export const reviewQueueQueryKey = ['functions', 'review'] as const;

export const reviewQueueQueryOptions = (status: number | undefined) =>
  queryOptions({ queryKey: [...reviewQueueQueryKey, status ?? 'all'] as const, queryFn: () => listReviewQueue(status) });

export function useReviewQueue(status: number | undefined) {
  return useQuery(reviewQueueQueryOptions(status));
}
