import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PrivacyPaths, ZAvatarPrivacyResponse, ZRedactStoredResponse, type TAvatarPrivacy, type TRedactStoredRequest, type TRedactStoredResponse } from '@persona/contract';
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

/** POST /api/redact_stored_conversations: one page of the stored conversations (or memories) redacted with the saved settings. */
export async function redactStoredPage(request: TRedactStoredRequest): Promise<TRedactStoredResponse> {
  return apiRequest(PrivacyPaths.redactStored, { method: 'POST', body: request, schema: ZRedactStoredResponse });
}

/**
 * Applies the saved redaction to everything stored of an avatar, page after page until the server
 * says it is done; `onProgress` hears the conversations looked at so far. The answer: conversations
 * looked at and changed.
 */
export function useRedactStored(onProgress: (looked: number) => void) {
  return useMutation({
    mutationFn: async (avatarId: number) => {
      let looked = 0;
      let changed = 0;
      let after: string | undefined;
      do {
        const page = await redactStoredPage({ avatarId, ...(after ? { after } : {}) });
        if (page.phase === 'conversations') {
          looked += page.looked;
          changed += page.changed;
          onProgress(looked);
        }
        after = page.nextCursor ?? undefined;
      } while (after);
      return { looked, changed };
    },
  });
}
