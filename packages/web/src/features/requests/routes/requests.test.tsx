import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SubscriptionType, type TPlanRequest } from '@persona/contract';
import { json } from '../../../test/fetch-mock';
import { adminSession, renderApp } from '../../../test/render-app';

const request = (id: number, status: TPlanRequest['status'] = 'PENDING'): TPlanRequest => ({
  id,
  userId: 100 + id,
  userName: `Customer ${id}`,
  email: `c${id}@example.com`,
  currentSubType: SubscriptionType.FREE,
  requestedSubType: SubscriptionType.PRO,
  status,
  created: '2026-11-01T10:00:00.000Z',
  decided: status === 'PENDING' ? null : '2026-11-02T10:00:00.000Z',
  decidedBy: status === 'PENDING' ? null : 'admin@example.com',
  reason: null,
});

const api = {
  'GET /api/admin/plan_requests': () => json({ status: 'OK', requests: [request(1), request(2), request(3, 'DECLINED')] }),
  'GET /api/admin/image_avatar_requests': () => json({ status: 'OK', requests: [] }),
  'POST /api/admin/plan_requests/decide': () => json({ status: 'OK', request: { ...request(2), status: 'CONFIRMED' } }),
};

describe('/requests', () => {
  it('highlights the request the e-mail links to and confirms it', async () => {
    const { requests } = renderApp({ route: '/requests?id=2', session: adminSession, api });
    const card = await screen.findByRole('listitem', { name: 'Plan request 2' });
    expect(card).toHaveAttribute('aria-current', 'true');
    expect(within(card).getByText('From the e-mail link')).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Plan request 1' })).not.toHaveAttribute('aria-current');
    await userEvent.click(within(card).getByRole('button', { name: 'Confirm' }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Confirm plan change?' })).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(requests.find((r) => r.path === '/api/admin/plan_requests/decide')?.body).toEqual({ requestId: 2, decision: 'confirm' }));
  });

  it('declines with a reason', async () => {
    const { requests } = renderApp({ route: '/requests', session: adminSession, api });
    await userEvent.click(within(await screen.findByRole('listitem', { name: 'Plan request 1' })).getByRole('button', { name: 'Decline' }));
    const dialog = screen.getByRole('dialog', { name: 'Decline plan change' });
    await userEvent.type(within(dialog).getByLabelText('Reason (optional)'), 'Talk to sales first');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Decline' }));
    await waitFor(() =>
      expect(requests.find((r) => r.path === '/api/admin/plan_requests/decide')?.body).toEqual({ requestId: 1, decision: 'decline', reason: 'Talk to sales first' }),
    );
  });

  it('says when the linked request was already decided', async () => {
    renderApp({ route: '/requests?id=3', session: adminSession, api });
    expect(await screen.findByText(/Plan request #3 of c3@example.com was already declined by admin@example.com/)).toBeInTheDocument();
  });
});
