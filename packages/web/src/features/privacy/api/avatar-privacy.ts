import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PrivacyPaths, ZAvatarPrivacyResponse, type TAvatarPrivacy } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export const privacyQueryKey = ['privacy'] as const;

/** GET /api/get_avatar_privacy?avatarId=: an avatar's redaction and retention (ADR 097). */
export async function getAvatarPrivacy(avatarId: number): Promise<TAvatarPrivacy> {
  return (await apiRequest(PrivacyPaths.get, { query: { avatarId: String(avatarId) }, schema: ZAvatarPrivacyResponse })).privacy;
}

export function useAvatarPrivacy(avatarId: number | null) {
  return useQuery({
    queryKey: [...privacyQueryKey, avatarId] as const,
    queryFn: () => getAvatarPrivacy(avatarId!),
    enabled: avatarId !== null,
    retry: false,
  });
}

/** POST /api/set_avatar_privacy: saves them; the answer is what is stored. */
export async function saveAvatarPrivacy(privacy: TAvatarPrivacy): Promise<TAvatarPrivacy> {
  return (await apiRequest(PrivacyPaths.set, { method: 'POST', body: privacy, schema: ZAvatarPrivacyResponse })).privacy;
}

export function useSaveAvatarPrivacy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: saveAvatarPrivacy,
    onSuccess: (saved) => client.setQueryData([...privacyQueryKey, saved.avatarId], saved),
  });
}
