import { useMutation, useQueryClient } from '@tanstack/react-query';
import { WebhookPaths, ZWebhookIdResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { webhooksQueryKey } from './list-webhooks';

/** POST /api/del_webhook {id}: the endpoint and its log. */
export async function deleteWebhook(id: number): Promise<void> {
  await apiRequest(WebhookPaths.delete, { method: 'POST', body: { id }, schema: ZWebhookIdResponse });
}

export function useDeleteWebhook() {
  const client = useQueryClient();
  return useMutation({ mutationFn: deleteWebhook, onSettled: () => client.invalidateQueries({ queryKey: webhooksQueryKey }) });
}
