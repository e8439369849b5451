import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { ZAdminUsersResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export interface ListUsersInput {
  search: string;
  limit: number;
  offset: number;
}

/** GET /api/admin/users?search=&limit=&offset= (admin): accounts whose name or e-mail matches. */
export function listUsers({ search, limit, offset }: ListUsersInput) {
  return apiRequest('/api/admin/users', { query: { search, limit, offset }, schema: ZAdminUsersResponse });
}

export const adminUsersQueryKey = ['admin-users'] as const;

export const adminUsersQueryOptions = (input: ListUsersInput) =>
  queryOptions({
    queryKey: [...adminUsersQueryKey, input.search, input.limit, input.offset] as const,
    queryFn: () => listUsers(input),
    placeholderData: keepPreviousData,
  });

export function useAdminUsers(input: ListUsersInput) {
  return useQuery(adminUsersQueryOptions(input));
}
