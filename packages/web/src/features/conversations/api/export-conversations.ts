import { useMutation } from '@tanstack/react-query';
import { ConversationPaths, type TExportConversationsParams, type TExportFormat } from '@persona/contract';
import { apiDownload } from '../../../lib/api-client';
import type { ConversationFilters } from './list-conversations';

/** GET /api/export_conversation: the list's filters (or one conversation's id) as a JSON or CSV file the browser saves. */
export async function exportConversations(input: { format: TExportFormat; filters?: ConversationFilters; id?: string }): Promise<string> {
  const query: TExportConversationsParams = { format: input.format, ...(input.id ? { id: input.id } : input.filters) };
  return apiDownload(ConversationPaths.export, { query, fallbackName: `conversations.${input.format}` });
}

export function useExportConversations() {
  return useMutation({ mutationFn: exportConversations });
}
