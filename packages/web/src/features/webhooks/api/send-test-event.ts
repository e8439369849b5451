import { useMutation, useQueryClient } from '@tanstack/react-query';
import { WebhookPaths, ZWebhookDeliveryResponse, type TWebhookDelivery } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { webhooksQueryKey } from './list-webhooks';

/** POST /api/test_webhook {id}: a `ping` event queued for the endpoint. */
export async function sendTestEvent(endpointId: number): Promise<TWebhookDelivery> {
  return (await apiRequest(WebhookPaths.test, { method: 'POST', body: { id: endpointId }, schema: ZWebhookDeliveryResponse })).delivery;
}

export function useSendTestEvent() {
  const client = useQueryClient();
  return useMutation({ mutationFn: sendTestEvent, onSettled: (_d, _e, id) => client.invalidateQueries({ queryKey: [...webhooksQueryKey, 'deliveries', id] }) });
}
