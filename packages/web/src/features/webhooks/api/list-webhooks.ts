import { useQuery } from '@tanstack/react-query';
import { WebhookPaths, ZListWebhooksResponse, type TWebhookEndpoint } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export const webhooksQueryKey = ['webhooks'] as const;

/** GET /api/list_webhook: the account's endpoints (never their secrets). */
export async function listWebhooks(): Promise<TWebhookEndpoint[]> {
  return (await apiRequest(WebhookPaths.list, { schema: ZListWebhooksResponse })).webhooks;
}

export function useWebhooks() {
  return useQuery({ queryKey: [...webhooksQueryKey, 'list'] as const, queryFn: listWebhooks });
}
