import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZReviewDecisionResponse, type TReviewDecisionRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { reviewQueueQueryKey } from './list-review-queue';

/** POST /api/admin/functions/review {id, version, decision, reason}: approve or reject what was read. */
export async function decideFunction(body: TReviewDecisionRequest) {
  return (await apiRequest('/api/admin/functions/review', { method: 'POST', body, schema: ZReviewDecisionResponse })).function;
}

export function useDecideFunction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: decideFunction,
    onSettled: () => client.invalidateQueries({ queryKey: reviewQueueQueryKey }),
  });
}
