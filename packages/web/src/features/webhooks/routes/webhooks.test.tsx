import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { WebhookMessages, type TWebhookDelivery, type TWebhookEndpoint } from '@persona/contract';
import { json, type RecordedRequest } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';

// Generous: the first wait also loads the page lazily, on a machine that may be busy.
const FIRST_LOAD = { timeout: 20_000 };
vi.setConfig({ testTimeout: 60_000 });

const endpoint: TWebhookEndpoint = { id: 100, url: 'https://crm.example.com/hooks', avatarId: 7, events: ['session.ended', 'transcript.ready'], enabled: true, createdAt: '2026-11-01T10:00:00.000Z' };
const SECRET = 'whsec_3q2-7wEXAMPLEexampleEXAMPLEexample0123456';
const delivered: TWebhookDelivery = {
  id: 501,
  endpointId: 100,
  eventId: 'evt_1',
  type: 'session.ended',
  status: 'delivered',
  attempts: 3,
  responseStatus: 204,
  lastError: null,
  createdAt: '2026-11-29T12:00:00.000Z',
  lastAttemptAt: '2026-11-29T12:01:30.000Z',
  nextAttemptAt: null,
  deliveredAt: '2026-11-29T12:01:30.000Z',
};
const retrying: TWebhookDelivery = { ...delivered, id: 502, eventId: 'evt_2', type: 'transcript.ready', status: 'pending', attempts: 1, responseStatus: 500, lastError: 'HTTP 500', deliveredAt: null, nextAttemptAt: '2026-11-29T12:02:00.000Z' };

function api(list: TWebhookEndpoint[]) {
  return {
    'GET /api/list_webhook': () => json({ status: 'OK', webhooks: list }),
    'GET /api/list_avatar': () => json({ status: 'OK', agents: [{ id: 7, name: 'Reception' }, { id: 8, name: 'Sales' }] }),
    'POST /api/add_webhook': (r: RecordedRequest) => json({ status: 'OK', webhook: { ...endpoint, id: 101, ...(r.body as object) }, secret: SECRET }),
    'POST /api/update_webhook': (r: RecordedRequest) => json({ status: 'OK', webhook: { ...endpoint, ...(r.body as object) } }),
    'GET /api/list_webhook_delivery': () => json({ status: 'OK', deliveries: [retrying, delivered] }),
    'POST /api/test_webhook': () => json({ status: 'OK', delivery: { ...delivered, id: 503, type: 'ping', status: 'pending', attempts: 0 } }),
    'POST /api/resend_webhook_delivery': () => json({ status: 'OK', delivery: { ...delivered, id: 504, status: 'pending', attempts: 0 } }),
    'POST /api/roll_webhook_secret': () => json({ status: 'OK', webhook: endpoint, secret: `${SECRET}x` }),
  };
}

describe('/webhooks', () => {
  it('adds an endpoint for one avatar and shows its secret once, with Copy', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { requests } = renderApp({ route: '/webhooks', session: userSession, api: api([]) });
    expect(await screen.findByText('No webhooks yet', undefined, FIRST_LOAD)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add webhook' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook' });
    // Nothing typed: the URL is asked for.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    expect(within(dialog).getByText('Enter the URL that receives the events.')).toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText('Endpoint URL'), 'https://crm.example.com/hooks');
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Avatar' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Reception' }));
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /transcript\.ready/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    await waitFor(() =>
      expect(requests.find((r) => r.path === '/api/add_webhook')?.body).toEqual({ url: 'https://crm.example.com/hooks', avatarId: 7, events: ['session.ended', 'transcript.ready'], enabled: true }),
    );
    expect(await screen.findByLabelText('Signing secret', undefined, FIRST_LOAD)).toHaveTextContent(SECRET);
    expect(screen.getByText(WebhookMessages.secretOnce)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(await screen.findByText('Secret copied.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText(SECRET)).not.toBeInTheDocument());
  });

  it('shows the delivery log (status, response, attempts, next retry), sends a test event and resends', async () => {
    const { requests } = renderApp({ route: '/webhooks', session: userSession, api: api([endpoint]) });
    const card = await screen.findByRole('listitem', { name: endpoint.url }, FIRST_LOAD);
    expect(within(card).getByText('Reception')).toBeInTheDocument();
    expect(within(card).getByText('Session ended')).toBeInTheDocument();
    await userEvent.click(within(card).getByRole('button', { name: 'Deliveries' }));
    const table = await screen.findByRole('table', { name: 'Deliveries' }, FIRST_LOAD);
    const rows = within(table).getAllByRole('row');
    expect(within(rows[1]!).getByText('transcript.ready')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('Pending')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('500')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('Delivered')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('204')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('3')).toBeInTheDocument();
    await userEvent.click(within(card).getByRole('button', { name: 'Send test event' }));
    await waitFor(() => expect(requests.find((r) => r.path === '/api/test_webhook')?.body).toEqual({ id: 100 }));
    await userEvent.click(within(table).getByRole('button', { name: 'Resend session.ended 501' }));
    await waitFor(() => expect(requests.find((r) => r.path === '/api/resend_webhook_delivery')?.body).toEqual({ id: 501 }));
  });

  it('edits an endpoint to all avatars and rolls its secret after confirmation', async () => {
    const { requests } = renderApp({ route: '/webhooks', session: userSession, api: api([endpoint]) });
    await userEvent.click(await screen.findByRole('button', { name: `Edit ${endpoint.url}` }, FIRST_LOAD));
    const dialog = await screen.findByRole('dialog', { name: 'Edit webhook' });
    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Avatar' }));
    await userEvent.click(await screen.findByRole('option', { name: 'All avatars' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests.find((r) => r.path === '/api/update_webhook')?.body).toMatchObject({ id: 100, avatarId: null, url: endpoint.url }));
    await userEvent.click(screen.getByRole('button', { name: 'Roll secret' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Roll the signing secret?' })).getByRole('button', { name: 'Roll secret' }));
    expect(await screen.findByLabelText('Signing secret', undefined, FIRST_LOAD)).toHaveTextContent(`${SECRET}x`);
  });
});
