import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { avatarsQueryKey } from './list-avatars';
import { mergeSavedAvatar } from './save-avatar';
import type { TAgent } from '../lib/agent';

interface AddAvatarAnswer {
  status: 'OK';
  agent: TAgent;
}

/** POST /api/add_avatar (JSON body = the agent payload): used by the mobile /addavatar page. */
export async function createAvatar(payload: Record<string, unknown>): Promise<TAgent> {
  const answer = await apiRequest<AddAvatarAnswer>('/api/add_avatar', { method: 'POST', body: payload });
  return answer.agent;
}

export function useCreateAvatar() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createAvatar,
    onSuccess: (agent) => client.setQueryData<TAgent[]>(avatarsQueryKey, (list) => mergeSavedAvatar(list, agent)),
  });
}
