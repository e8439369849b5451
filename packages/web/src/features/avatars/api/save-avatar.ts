import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { avatarsQueryKey } from './list-avatars';
import type { TAvatar, ZSaveAvatarResponse } from '@persona/contract';
import type { z } from 'zod';

/** What add_avatar_v2 takes: the full agent payload plus optional files. */
export interface SaveAvatarInput {
  payload: Record<string, unknown>;
  files?: { backgroundImage?: File | Blob; scene?: File | Blob; avatarPhoto?: File | Blob };
  /** Large uploads (video, .glb) get more time than the default 10 s. */
  timeoutMs?: number;
}

type SaveAvatarAnswer = z.output<typeof ZSaveAvatarResponse>;

/**
 * POST /api/add_avatar_v2 (multipart): `json` is the full agent payload (id and version when
 * updating), files backgroundImage / scene / avatarPhoto. Creates without id, updates with it.
 */
export async function saveAvatar({ payload, files = {}, timeoutMs }: SaveAvatarInput): Promise<TAvatar> {
  const form = new FormData();
  form.append('json', JSON.stringify(payload));
  for (const [field, file] of Object.entries(files)) {
    if (file) form.append(field, file, file instanceof File ? file.name : `${field}.jpg`);
  }
  const answer = await apiRequest<SaveAvatarAnswer>('/api/add_avatar_v2', { method: 'POST', body: form, timeoutMs: timeoutMs ?? 60_000 });
  return answer.agent;
}

/** Puts a saved avatar into the cached list: a new one at the top, an updated one in place. */
export function mergeSavedAvatar(list: TAvatar[] | undefined, agent: TAvatar): TAvatar[] {
  const rest = (list ?? []).filter((a) => a.id !== agent.id);
  return [agent, ...rest];
}

export function useSaveAvatar() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: saveAvatar,
    onSuccess: (agent) => {
      client.setQueryData<TAvatar[]>(avatarsQueryKey, (list) => mergeSavedAvatar(list, agent));
    },
  });
}
