import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TImageAvatarRequest, TPhotoLandmarks } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { imageRequestsQueryKey } from './list-image-requests';

export type DecideImageInput =
  | { requestId: number; decision: 'complete'; name: string; thumbnail: File; landmarks?: TPhotoLandmarks }
  | { requestId: number; decision: 'decline'; reason?: string };

/**
 * POST /api/admin/image_avatar_requests/decide (multipart): complete with the finished avatar's image
 * (file `thumbnail`, jpg/png) and name, or decline with a reason.
 */
export async function decideImageRequest(input: DecideImageInput): Promise<TImageAvatarRequest> {
  const form = new FormData();
  form.set('requestId', String(input.requestId));
  form.set('decision', input.decision);
  if (input.decision === 'complete') {
    form.set('name', input.name);
    if (input.landmarks) form.set('landmarks', JSON.stringify(input.landmarks));
    form.set('thumbnail', input.thumbnail, input.thumbnail.name);
  } else if (input.reason) {
    form.set('reason', input.reason);
  }
  // Uploads may take longer than the 10 s every other call gets.
  const answer = await apiRequest<{ status: 'OK'; request: TImageAvatarRequest }>('/api/admin/image_avatar_requests/decide', {
    method: 'POST',
    body: form,
    timeoutMs: 60_000,
  });
  return answer.request;
}

export function useDecideImageRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: decideImageRequest,
    onSettled: () => client.invalidateQueries({ queryKey: imageRequestsQueryKey }),
  });
}
