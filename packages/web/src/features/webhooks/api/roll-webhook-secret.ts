import { useMutation } from '@tanstack/react-query';
import { WebhookPaths, ZWebhookSecretResponse, type TWebhookSecretResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/roll_webhook_secret {id}: a new secret (shown once); the old one stops at once. */
export async function rollWebhookSecret(id: number): Promise<TWebhookSecretResponse> {
  return apiRequest(WebhookPaths.rollSecret, { method: 'POST', body: { id }, schema: ZWebhookSecretResponse });
}

export function useRollWebhookSecret() {
  return useMutation({ mutationFn: rollWebhookSecret });
}
