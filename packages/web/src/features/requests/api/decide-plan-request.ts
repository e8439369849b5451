import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZDecidePlanResponse, type TPlanRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { planRequestsQueryKey } from './list-plan-requests';

export interface DecidePlanInput {
  requestId: number;
  decision: 'confirm' | 'decline';
  reason?: string;
}

/** POST /api/admin/plan_requests/decide: confirm changes the plan; either way the customer is e-mailed. */
export async function decidePlanRequest(body: DecidePlanInput): Promise<TPlanRequest> {
  return (await apiRequest('/api/admin/plan_requests/decide', { method: 'POST', body, schema: ZDecidePlanResponse })).request;
}

export function useDecidePlanRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: decidePlanRequest,
    onSettled: () => client.invalidateQueries({ queryKey: planRequestsQueryKey }),
  });
}
