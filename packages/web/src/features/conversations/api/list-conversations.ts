import { useInfiniteQuery } from '@tanstack/react-query';
import { ConversationPaths, ZListConversationsResponse, type TListConversationsParams, type TListConversationsResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export const conversationsQueryKey = ['conversations'] as const;

/** What the page filters by: the URL's search parameters, as the API takes them. */
export type ConversationFilters = Pick<TListConversationsParams, 'avatarId' | 'from' | 'to' | 'outcome' | 'hasErrors' | 'q'>;

/** GET /api/list_conversation (administrators: /api/admin/list_conversation, every account's): one page. */
export async function listConversations(filters: ConversationFilters, cursor: string | null, isAdmin: boolean): Promise<TListConversationsResponse> {
  return apiRequest(isAdmin ? ConversationPaths.adminList : ConversationPaths.list, { query: { ...filters, ...(cursor ? { cursor } : {}) }, schema: ZListConversationsResponse });
}

/** The list, a page at a time (keyset: each page names the next). */
export function useConversations(filters: ConversationFilters, isAdmin: boolean) {
  return useInfiniteQuery({
    queryKey: [...conversationsQueryKey, 'list', isAdmin ? 'all' : 'mine', filters] as const,
    queryFn: ({ pageParam }) => listConversations(filters, pageParam, isAdmin),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}
