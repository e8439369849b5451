import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiKeyMessages, type TApiKey } from '@persona/contract';
import { json, type RecordedRequest } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';

// The first render loads the page's code on demand: a little more time than findBy's default.
const FIRST_LOAD = { timeout: 10_000 };
vi.setConfig({ testTimeout: 60_000 });
const SECRET = `ps_live_0123456789ab_${'x'.repeat(43)}`;

const key = (over: Partial<TApiKey>): TApiKey => ({
  id: '6f1c2f9e-1a2b-4c3d-8e4f-0000000000a1',
  name: 'CRM sync',
  prefix: '0123456789ab',
  scopes: ['conversations:read'],
  created: '2026-06-01T12:00:00.000Z',
  expiresAt: '2099-01-01T00:00:00.000Z',
  lastUsedAt: null,
  ...over,
});

function api(initial: TApiKey[]) {
  let keys = [...initial];
  return {
    'GET /api/list_api_key': () => json({ status: 'OK', apiKeys: keys }),
    'POST /api/add_api_key': (req: RecordedRequest) => {
      const body = req.body as { name: string; scopes: TApiKey['scopes']; expiresInDays: number | null };
      const made = key({ id: '6f1c2f9e-1a2b-4c3d-8e4f-0000000000b2', name: body.name, scopes: body.scopes, expiresAt: body.expiresInDays === null ? null : '2099-01-01T00:00:00.000Z' });
      keys = [...keys, made];
      return json({ status: 'OK', apiKey: made, secret: SECRET });
    },
    'POST /api/del_api_key': (req: RecordedRequest) => {
      const { id } = req.body as { id: string };
      keys = keys.filter((k) => k.id !== id);
      return json({ status: 'OK', id });
    },
  };
}

describe('/apiKeys', () => {
  it('lists the keys: name, prefix, scopes, expiry and last use, never a secret', async () => {
    renderApp({ route: '/apiKeys', session: userSession, api: api([key({}), key({ id: '6f1c2f9e-1a2b-4c3d-8e4f-0000000000a2', name: 'Old', prefix: 'ffffffffffff', expiresAt: null, lastUsedAt: '2026-06-02T08:00:00.000Z', scopes: ['avatars:read', 'tokens:create'] })]) });
    const table = await screen.findByRole('table', { name: 'API keys' }, FIRST_LOAD);
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(within(rows[1]!).getByText('CRM sync')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('ps_live_0123456789ab_…')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('conversations:read')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('tokens:create')).toBeInTheDocument();
    expect(within(rows[2]!).getAllByText('Never')).toHaveLength(1);
  });

  it('creates a key with the chosen scopes and expiry, shows it once with Copy, and it is gone on Done', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { requests } = renderApp({ route: '/apiKeys', session: userSession, api: api([]) });
    expect(await screen.findByText('No API keys yet', undefined, FIRST_LOAD)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'New API key' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText(ApiKeyMessages.nameRequired)).toBeInTheDocument();
    expect(within(dialog).getByText(ApiKeyMessages.scopesRequired)).toBeInTheDocument();
    expect(requests.some((r) => r.method === 'POST')).toBe(false);

    await userEvent.type(within(dialog).getByLabelText('Name'), 'Backend');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /conversations:delete/ }));
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /conversations:read/ }));
    await userEvent.click(within(dialog).getByLabelText('Expires after'));
    await userEvent.click(await screen.findByRole('option', { name: 'Never' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'Backend', scopes: ['conversations:read', 'conversations:delete'], expiresInDays: null }));

    expect(await within(dialog).findByLabelText('API key')).toHaveTextContent(SECRET);
    expect(within(dialog).getByText(ApiKeyMessages.shownOnce)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(await within(dialog).findByText(ApiKeyMessages.copied)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const table = await screen.findByRole('table', { name: 'API keys' });
    expect(within(table).getByText('Backend')).toBeInTheDocument();
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('revokes a key after a confirmation', async () => {
    const { requests } = renderApp({ route: '/apiKeys', session: userSession, api: api([key({})]) });
    await userEvent.click(await screen.findByRole('button', { name: 'Revoke CRM sync' }, FIRST_LOAD));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(ApiKeyMessages.revokeConfirm('CRM sync'))).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ id: key({}).id }));
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
  });

  it('is reached from the Account page', async () => {
    renderApp({
      route: '/account',
      session: userSession,
      api: api([]),
    });
    const link = await screen.findByRole('link', { name: 'API keys' }, FIRST_LOAD);
    expect(link.getAttribute('href')).toBe('/apiKeys');
  });
});
