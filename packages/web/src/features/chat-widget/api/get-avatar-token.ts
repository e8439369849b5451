import { apiRequest } from '../../../lib/api-client';

interface GetAvatarAnswer {
  status: 'OK';
  agent?: { token?: string };
}

/**
 * GET /api/get_avatar: the signed-in owner's avatar; its `token` is the portal-minted preview
 * token when the avatar is protected by an encryption key.
 */
export async function getAvatarToken(agentId: number): Promise<string | undefined> {
  const answer = await apiRequest<GetAvatarAnswer>('/api/get_avatar', { query: { agentId, mode: 'get' } });
  return answer.agent?.token || undefined;
}
