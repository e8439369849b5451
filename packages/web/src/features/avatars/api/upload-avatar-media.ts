import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../../lib/api-client';
import { authStore } from '../../../lib/auth-store';
import { getPublicConfig } from '../../../lib/config';
import { avatarsQueryKey } from './list-avatars';
import { mergeSavedAvatar } from './save-avatar';
import type { TAvatar } from '@persona/contract';

export interface UploadMediaInput {
  /** The stored avatar's payload (id and version): the upload changes nothing else. */
  payload: Record<string, unknown>;
  field?: 'backgroundImage' | 'scene' | 'avatarModel';
  file?: File;
  /** Called with 0..1 while the file is sent. */
  onProgress?: (fraction: number) => void;
}

/**
 * Uploads (or, with payload.deleteMediaIds, removes) environment media right away through
 * POST /api/add_avatar_v2, with upload progress (XMLHttpRequest: fetch reports none).
 */
export function uploadAvatarMedia({ payload, field, file, onProgress }: UploadMediaInput): Promise<TAvatar> {
  const form = new FormData();
  form.append('json', JSON.stringify(payload));
  if (field && file) form.append(field, file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', new URL('/api/add_avatar_v2', window.location.origin).toString());
    const appKey = getPublicConfig()?.appKey ?? '';
    const session = authStore.getSession();
    xhr.setRequestHeader('Authorization', session ? `Bearer ${appKey}:${session.token}` : `Bearer ${appKey}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.timeout = 300_000;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: keep the text
      }
      const answer = body as { status?: string; agent?: TAvatar; errors?: string[] } | null;
      if (xhr.status >= 200 && xhr.status < 300 && answer?.status === 'OK' && answer.agent) {
        resolve(answer.agent);
        return;
      }
      if (xhr.status === 401) authStore.clear();
      reject(
        new ApiError({
          kind: 'http',
          message: answer?.errors?.join(' ') || `Request failed: ${xhr.status} ${xhr.statusText}`,
          status: xhr.status,
          statusText: xhr.statusText,
          body,
        }),
      );
    };
    xhr.onerror = () => reject(new ApiError({ kind: 'network', message: 'There was an error uploading the file. Please try submitting it again.' }));
    xhr.ontimeout = () => reject(new ApiError({ kind: 'timeout', message: 'The upload took too long. Please try again.' }));
    xhr.send(form);
  });
}

export function useUploadAvatarMedia() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: uploadAvatarMedia,
    onSuccess: (agent) => client.setQueryData<TAvatar[]>(avatarsQueryKey, (list) => mergeSavedAvatar(list, agent)),
  });
}
