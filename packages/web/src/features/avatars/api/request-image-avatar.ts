import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TImageAvatarRequest, ZImageAvatarRequestResponse } from '@persona/contract';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export interface ImageAvatarRequestInput {
  photo: File;
  name: string;
  notes: string;
  permissionConfirmed: boolean;
}

type ImageAvatarRequestAnswer = z.output<typeof ZImageAvatarRequestResponse>;

/** POST /api/image_avatar_requests (multipart: photo, name, notes, permissionConfirmed). */
export async function requestImageAvatar(input: ImageAvatarRequestInput): Promise<TImageAvatarRequest> {
  const form = new FormData();
  form.append('name', input.name);
  form.append('notes', input.notes);
  form.append('permissionConfirmed', String(input.permissionConfirmed));
  form.append('photo', input.photo, input.photo.name);
  const answer = await apiRequest<ImageAvatarRequestAnswer>('/api/image_avatar_requests', { method: 'POST', body: form, timeoutMs: 60_000 });
  return answer.request;
}

export function useRequestImageAvatar() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: requestImageAvatar,
    onSuccess: () => client.invalidateQueries({ queryKey: ['avatars', 'catalog', 'custom'] }),
  });
}
