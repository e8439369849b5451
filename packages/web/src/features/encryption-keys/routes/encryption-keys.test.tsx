import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { EncryptionKeyMessages, type TEncryptionKey } from '@persona/contract';
import { json, type RecordedRequest } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';

/** Pages are loaded lazily: the first wait can take a while on a busy machine. */
const FIRST_LOAD = { timeout: 10_000 };
// These walk through whole pages with many steps: give them room when every project runs at once.
vi.setConfig({ testTimeout: 60_000 });

const defaultKey: TEncryptionKey = { id: 100, name: 'Default Key', created: '2026-05-01T10:00:00.000Z', defaultKey: true, publicKey: '-----BEGIN PUBLIC KEY-----\nAAA\n-----END PUBLIC KEY-----\n' };
const siteKey: TEncryptionKey = { ...defaultKey, id: 101, name: 'Website', defaultKey: false };
const PRIVATE = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n';

function api(list: TEncryptionKey[]) {
  return {
    'GET /api/list_encryption_keys': () => json({ status: 'OK', encKeys: list }),
    'POST /api/add_encryption_key': (r: RecordedRequest) =>
      json({ status: 'OK', encKey: { ...siteKey, id: 102, name: (r.body as { name: string }).name, encKey: PRIVATE } }),
    'POST /api/del_encryption_key': () => json({ status: 'OK', id: 101 }),
  };
}

describe('/encryptionKeys', () => {
  it('lists keys; the default key has no Delete', async () => {
    renderApp({ route: '/encryptionKeys', session: userSession, api: api([defaultKey, siteKey]) });
    const card = (await screen.findByRole('heading', { name: 'Default Key' }, FIRST_LOAD)).closest('li')!;
    expect(within(card).getByText('Default')).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete Website' })).toBeInTheDocument();
  });

  it('asks for the Encryption Name, then shows the private key once with Copy and the copied notice', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { requests } = renderApp({ route: '/encryptionKeys', session: userSession, api: api([defaultKey]) });
    await userEvent.click(await screen.findByRole('button', { name: 'Create' }, FIRST_LOAD));
    expect(await screen.findByText(EncryptionKeyMessages.nameRequired, undefined, FIRST_LOAD)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Encryption Name'), 'Kiosk');
    expect(screen.queryByText(EncryptionKeyMessages.nameRequired)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ id: null, name: 'Kiosk' }));
    expect(await screen.findByLabelText('Private key', undefined, FIRST_LOAD)).toHaveTextContent('BEGIN PRIVATE KEY');
    expect(screen.getByText(EncryptionKeyMessages.shownOnce)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(PRIVATE);
    expect(await screen.findByText(EncryptionKeyMessages.copied, undefined, FIRST_LOAD)).toBeInTheDocument();
    // Done: the key is gone from the page for good.
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByLabelText('Private key')).not.toBeInTheDocument();
  });

  it('shows a key read-only (no edit) and deletes a non-default key after confirmation', async () => {
    const { requests } = renderApp({ route: '/encryptionKeys', session: userSession, api: api([defaultKey, siteKey]) });
    await userEvent.click(await screen.findByRole('button', { name: 'View Website' }, FIRST_LOAD));
    const region = screen.getByRole('region', { name: 'Website' });
    expect(within(region).getByText('Keys cannot be edited. To replace this key, create a new one, switch your avatars to it and delete this one.')).toBeInTheDocument();
    expect(within(region).queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Delete Website' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(EncryptionKeyMessages.deleted, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/del_encryption_key')?.body).toEqual({ id: 101, mode: 'delete' });
  });

  it('shows the load failure text', async () => {
    renderApp({ route: '/encryptionKeys', session: userSession, api: { 'GET /api/list_encryption_keys': () => json({ status: 'FAIL', errors: ['x'] }, 400) } });
    expect(await screen.findByText("Oops! Something went wrong. We couldn't load the encryption keys.", undefined, FIRST_LOAD)).toBeInTheDocument();
  });
});
