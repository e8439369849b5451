import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { avatarsQueryKey } from './list-avatars';
import { mergeSavedAvatar } from './save-avatar';
import type { TAvatar, ZSaveAvatarResponse } from '@persona/contract';
import type { z } from 'zod';

type AddAvatarAnswer = z.output<typeof ZSaveAvatarResponse>;

/** POST /api/add_avatar (JSON body = the agent payload): used by the mobile /addavatar page. */
export async function createAvatar(payload: Record<string, unknown>): Promise<TAvatar> {
  const answer = await apiRequest<AddAvatarAnswer>('/api/add_avatar', { method: 'POST', body: payload });
  return answer.agent;
}

export function useCreateAvatar() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createAvatar,
    onSuccess: (agent) => client.setQueryData<TAvatar[]>(avatarsQueryKey, (list) => mergeSavedAvatar(list, agent)),
  });
}
