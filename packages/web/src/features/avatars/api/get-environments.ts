import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export interface TEnv2d {
  id: string;
  name: string;
  url: string;
  thumbnail: string;
}
export interface TEnv3d {
  id: string;
  name: string;
  'gltf-model': string;
  thumbnail: string;
}
export interface TLight {
  id: string;
  name: string;
  preset: string;
  intensity: number;
}
export interface TEnvironments {
  env2d: TEnv2d[];
  env3d: TEnv3d[];
  video: TEnv2d[];
  light: TLight[];
}

/** GET {defaultEnvsListUrl}: backgrounds (2d, video), 3D environments and light presets. */
export async function getEnvironments(url: string): Promise<TEnvironments> {
  const answer = await apiRequest<Partial<TEnvironments>>(url, { auth: 'none' });
  return { env2d: answer.env2d ?? [], env3d: answer.env3d ?? [], video: answer.video ?? [], light: answer.light ?? [] };
}

export const environmentsQueryOptions = (url: string | undefined) =>
  queryOptions({
    queryKey: ['avatars', 'catalog', 'environments', url],
    queryFn: () => getEnvironments(url!),
    enabled: Boolean(url),
    staleTime: Infinity,
  });

export function useEnvironments(url: string | undefined) {
  return useQuery(environmentsQueryOptions(url));
}
