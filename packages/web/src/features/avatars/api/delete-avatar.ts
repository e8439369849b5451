import { useMutation, type QueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { avatarsQueryKey } from './list-avatars';
import type { TAvatar, ZDeleteAvatarResponse } from '@persona/contract';
import type { z } from 'zod';

type DeleteAvatarAnswer = z.output<typeof ZDeleteAvatarResponse>;

/** POST /api/del_avatar {agentId, mode:'delete'}. */
export function deleteAvatar(agentId: number): Promise<DeleteAvatarAnswer> {
  return apiRequest<DeleteAvatarAnswer>('/api/del_avatar', { method: 'POST', body: { agentId, mode: 'delete' } });
}

/** Removes a deleted avatar's card (after the dialog has shown the success for 2 s). */
export function forgetAvatar(client: QueryClient, agentId: number): void {
  client.setQueryData<TAvatar[]>(avatarsQueryKey, (list) => list?.filter((a) => a.id !== agentId));
}

export function useDeleteAvatar() {
  return useMutation({ mutationFn: deleteAvatar });
}
