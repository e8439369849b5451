import { useMutation, useQueryClient } from '@tanstack/react-query';
import { WebhookPaths, ZWebhookDeliveryResponse, type TWebhookDelivery } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { webhooksQueryKey } from './list-webhooks';

/** POST /api/resend_webhook_delivery {id}: the same event queued again. */
export async function resendDelivery(deliveryId: number): Promise<TWebhookDelivery> {
  return (await apiRequest(WebhookPaths.resend, { method: 'POST', body: { id: deliveryId }, schema: ZWebhookDeliveryResponse })).delivery;
}

export function useResendDelivery() {
  const client = useQueryClient();
  return useMutation({ mutationFn: resendDelivery, onSettled: (d) => client.invalidateQueries({ queryKey: [...webhooksQueryKey, 'deliveries', ...(d ? [d.endpointId] : [])] }) });
}
