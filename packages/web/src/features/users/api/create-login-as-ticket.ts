import { ZLoginAsTicketResponse, type TLoginAsTicketResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/admin/users/login_as {userId} (admin): a one-time ticket (a minute, single use) to sign in as the customer. */
export function createLoginAsTicket(userId: number): Promise<TLoginAsTicketResponse> {
  return apiRequest('/api/admin/users/login_as', { method: 'POST', body: { userId }, schema: ZLoginAsTicketResponse });
}
