import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConversationPaths, ZDeleteConversationResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { conversationsQueryKey } from './list-conversations';

/** POST /api/del_conversation {id}: the owner deletes one ended conversation. */
export async function deleteConversation(id: string): Promise<void> {
  await apiRequest(ConversationPaths.delete, { method: 'POST', body: { id }, schema: ZDeleteConversationResponse });
}

export function useDeleteConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteConversation,
    onSuccess: (_, id) => client.removeQueries({ queryKey: [...conversationsQueryKey, 'one', id] }),
    onSettled: () => client.invalidateQueries({ queryKey: [...conversationsQueryKey, 'list'] }),
  });
}

/** POST /api/del_conversation {ids}: every one of them, or none (one still open, or gone). */
export async function deleteConversations(ids: string[]): Promise<void> {
  await apiRequest(ConversationPaths.delete, { method: 'POST', body: { ids }, schema: ZDeleteConversationResponse });
}

export function useDeleteConversations() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteConversations,
    onSuccess: (_, ids) => {
      for (const id of ids) client.removeQueries({ queryKey: [...conversationsQueryKey, 'one', id] });
    },
    onSettled: () => client.invalidateQueries({ queryKey: [...conversationsQueryKey, 'list'] }),
  });
}
