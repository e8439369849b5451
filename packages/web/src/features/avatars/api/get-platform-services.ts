import { useQuery } from '@tanstack/react-query';
import { ZPlatformServicesResponse, type TPlatformServicesResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/lookups/platform: whether this server runs the product's own LLM and realtime. */
export async function getPlatformServices(signal?: AbortSignal): Promise<TPlatformServicesResponse> {
  return apiRequest('/api/lookups/platform', { schema: ZPlatformServicesResponse, signal });
}

export function usePlatformServices() {
  return useQuery({ queryKey: ['avatars', 'platform-services'], queryFn: ({ signal }) => getPlatformServices(signal), staleTime: 30_000 });
}
