import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListFunctionsResponse, type TFunction } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/list_functions: the account's functions, newest first. */
export async function listFunctions(): Promise<TFunction[]> {
  return (await apiRequest('/api/list_functions', { schema: ZListFunctionsResponse })).functions;
}

export const functionsQueryKey = ['functions', 'list'] as const;

export const functionsQueryOptions = () => queryOptions({ queryKey: functionsQueryKey, queryFn: listFunctions });

export function useFunctions() {
  return useQuery(functionsQueryOptions());
}
