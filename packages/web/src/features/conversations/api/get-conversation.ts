import { useQuery } from '@tanstack/react-query';
import { ConversationPaths, ZGetConversationResponse, type TConversationDetail } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { conversationsQueryKey } from './list-conversations';

/** GET /api/get_conversation?id= (administrators: the admin path, any account's): one transcript; with `q`, the turns that hold the words (ADR 098). */
export async function getConversation(id: string, isAdmin: boolean, q?: string): Promise<TConversationDetail> {
  return (await apiRequest(isAdmin ? ConversationPaths.adminGet : ConversationPaths.get, { query: { id, ...(q ? { q } : {}) }, schema: ZGetConversationResponse })).conversation;
}

export function useConversation(id: string, isAdmin: boolean, q?: string) {
  return useQuery({ queryKey: [...conversationsQueryKey, 'one', id, isAdmin, q ?? ''] as const, queryFn: () => getConversation(id, isAdmin, q), retry: false });
}
