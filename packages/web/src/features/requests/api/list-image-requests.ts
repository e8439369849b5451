import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TImageAvatarRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { requestsQueryKey } from './list-plan-requests';

interface ImageRequestsAnswer {
  status: 'OK';
  requests: TImageAvatarRequest[];
}

/** GET /api/admin/image_avatar_requests (admin): photo avatar requests with their photo URL. */
export async function listImageRequests(): Promise<TImageAvatarRequest[]> {
  return (await apiRequest<ImageRequestsAnswer>('/api/admin/image_avatar_requests')).requests;
}

export const imageRequestsQueryKey = [...requestsQueryKey, 'images'] as const;

export const imageRequestsQueryOptions = () => queryOptions({ queryKey: imageRequestsQueryKey, queryFn: listImageRequests, staleTime: 0 });

export function useImageRequests() {
  return useQuery(imageRequestsQueryOptions());
}
