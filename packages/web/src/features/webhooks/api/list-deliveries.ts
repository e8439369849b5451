import { useQuery } from '@tanstack/react-query';
import { WebhookPaths, ZListWebhookDeliveriesResponse, type TWebhookDelivery } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { webhooksQueryKey } from './list-webhooks';

/** GET /api/list_webhook_delivery?endpointId=: an endpoint's log, newest first. */
export async function listDeliveries(endpointId: number): Promise<TWebhookDelivery[]> {
  return (await apiRequest(WebhookPaths.deliveries, { query: { endpointId }, schema: ZListWebhookDeliveriesResponse })).deliveries;
}

/** Polled every 5 s while a delivery is pending (a retry may be due). */
export function useDeliveries(endpointId: number) {
  return useQuery({
    queryKey: [...webhooksQueryKey, 'deliveries', endpointId] as const,
    queryFn: () => listDeliveries(endpointId),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'pending') ? 5_000 : false),
  });
}
