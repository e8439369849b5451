import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZPlanRequestsResponse, type TPlanRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/admin/plan_requests (admin): every plan change request, pending and decided. */
export async function listPlanRequests(): Promise<TPlanRequest[]> {
  return (await apiRequest('/api/admin/plan_requests', { schema: ZPlanRequestsResponse })).requests;
}

export const requestsQueryKey = ['requests'] as const;
export const planRequestsQueryKey = [...requestsQueryKey, 'plans'] as const;

export const planRequestsQueryOptions = () => queryOptions({ queryKey: planRequestsQueryKey, queryFn: listPlanRequests, staleTime: 0 });

export function usePlanRequests() {
  return useQuery(planRequestsQueryOptions());
}
