import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZMutateFunctionsResponse, type TFunctionMutation, type TFunctionMutationResult } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { functionsQueryKey } from './list-functions';

/** POST /api/functions {functions: [...]}: one item here; the answer holds its result. */
export async function mutateFunction(item: TFunctionMutation): Promise<TFunctionMutationResult> {
  const answer = await apiRequest('/api/functions', { method: 'POST', body: { functions: [item] }, schema: ZMutateFunctionsResponse });
  return answer.results[0]!;
}

/** Create, update or delete one function; the list refreshes after, whatever happened. */
export function useMutateFunction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: mutateFunction,
    onSettled: () => client.invalidateQueries({ queryKey: functionsQueryKey }),
  });
}
