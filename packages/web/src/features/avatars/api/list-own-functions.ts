import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListFunctionsResponse, type TFunction } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/list_functions: the user's functions with their approval status (the 'Function List' dialog). */
export async function listOwnFunctions(signal?: AbortSignal): Promise<TFunction[]> {
  return (await apiRequest('/api/list_functions', { schema: ZListFunctionsResponse, signal })).functions;
}

export const ownFunctionsQueryOptions = () =>
  queryOptions({ queryKey: ['avatars', 'linkable', 'functions'], queryFn: ({ signal }) => listOwnFunctions(signal), staleTime: 30_000 });

export function useOwnFunctions(isEnabled = true) {
  return useQuery({ ...ownFunctionsQueryOptions(), enabled: isEnabled });
}
