import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PrivacyPaths, ZEraseVisitorResponse, type TEraseVisitorResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { conversationsQueryKey } from './list-conversations';

/** POST /api/erase_visitor {visitor}: every ended conversation and memory of one visitor of the account (ADR 097). */
export async function eraseVisitor(visitor: string): Promise<TEraseVisitorResponse> {
  return apiRequest(PrivacyPaths.eraseVisitor, { method: 'POST', body: { visitor }, schema: ZEraseVisitorResponse });
}

export function useEraseVisitor() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: eraseVisitor,
    // Any transcript shown may have been theirs.
    onSuccess: () => client.removeQueries({ queryKey: [...conversationsQueryKey, 'one'] }),
    onSettled: () => client.invalidateQueries({ queryKey: [...conversationsQueryKey, 'list'] }),
  });
}
