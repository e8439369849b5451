import { useQuery } from '@tanstack/react-query';
import { ConversationPaths, ZGetConversationResponse, type TConversationDetail } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { conversationsQueryKey } from './list-conversations';

/** GET /api/get_conversation?id= (administrators: the admin path, any account's): one transcript. */
export async function getConversation(id: string, isAdmin: boolean): Promise<TConversationDetail> {
  return (await apiRequest(isAdmin ? ConversationPaths.adminGet : ConversationPaths.get, { query: { id }, schema: ZGetConversationResponse })).conversation;
}

export function useConversation(id: string, isAdmin: boolean) {
  return useQuery({ queryKey: [...conversationsQueryKey, 'one', id, isAdmin] as const, queryFn: () => getConversation(id, isAdmin), retry: false });
}
