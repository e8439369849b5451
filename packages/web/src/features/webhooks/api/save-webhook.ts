import { useMutation, useQueryClient } from '@tanstack/react-query';
import { WebhookPaths, ZWebhookResponse, ZWebhookSecretResponse, type TAddWebhookRequest, type TUpdateWebhookRequest, type TWebhookEndpoint, type TWebhookSecretResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { webhooksQueryKey } from './list-webhooks';

/** POST /api/add_webhook: the new endpoint and its secret (shown once). */
export async function addWebhook(body: TAddWebhookRequest): Promise<TWebhookSecretResponse> {
  return apiRequest(WebhookPaths.add, { method: 'POST', body, schema: ZWebhookSecretResponse });
}

/** POST /api/update_webhook: URL, avatar, events, on/off. */
export async function updateWebhook(body: TUpdateWebhookRequest): Promise<TWebhookEndpoint> {
  return (await apiRequest(WebhookPaths.update, { method: 'POST', body, schema: ZWebhookResponse })).webhook;
}

export function useAddWebhook() {
  const client = useQueryClient();
  return useMutation({ mutationFn: addWebhook, onSettled: () => client.invalidateQueries({ queryKey: webhooksQueryKey }) });
}

export function useUpdateWebhook() {
  const client = useQueryClient();
  return useMutation({ mutationFn: updateWebhook, onSettled: () => client.invalidateQueries({ queryKey: webhooksQueryKey }) });
}
