import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TAdminUser } from '@persona/contract';
import { json, type Handler } from '../../../test/fetch-mock';
import { adminSession, renderApp } from '../../../test/render-app';

const account = (id: number, email: string, over: Partial<TAdminUser> = {}): TAdminUser => ({
  id,
  name: 'Pat Doe',
  email,
  companyName: '',
  userType: 'USER',
  status: 'ACTIVE',
  subscriptionType: 1,
  created: '2026-11-01T10:00:00.000Z',
  ...over,
});

function api(extra: Record<string, Handler> = {}) {
  return {
    'GET /api/admin/users': () =>
      json({ status: 'OK', users: [account(1001, 'pat@example.com'), account(1002, 'root@example.com', { userType: 'ADMIN' })], total: 2 }),
    'POST /api/admin/users/login_as': () => json({ status: 'OK', ticket: 'one-time-ticket', email: 'pat@example.com', expiresAt: new Date(Date.now() + 60_000).toISOString() }),
    ...extra,
  };
}

/** The new tab window.open gives back: it records what the Users page posts to it. */
function stubNewTab() {
  const tab = { postMessage: vi.fn(), close: vi.fn() };
  const open = vi.fn(() => tab as unknown as Window);
  vi.stubGlobal('open', open);
  return { tab, open };
}

const origin = window.location.origin;
const readyFrom = (source: unknown, fromOrigin = origin) =>
  act(() => {
    window.dispatchEvent(new MessageEvent('message', { data: { type: 'persona:login-as:ready' }, origin: fromOrigin, source: source as Window }));
  });

describe('/users: sign in as a customer', () => {
  it('opens a new tab with nothing secret in its address and hands it a one-time ticket by postMessage', async () => {
    const { tab, open } = stubNewTab();
    const { requests } = renderApp({ route: '/users', session: adminSession, api: api() });
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in as pat@example.com' }));

    expect(open).toHaveBeenCalledTimes(1);
    const [url] = open.mock.calls[0] as unknown as [string];
    expect(url).toMatch(/\/login-as$/);
    expect(url).not.toContain(adminSession.token);
    await waitFor(() => expect(requests.find((r) => r.path === '/api/admin/users/login_as')?.body).toEqual({ userId: 1001 }));
    expect(requests.find((r) => r.path === '/api/admin/users/login_as')?.headers.authorization).toBe(`Bearer test-app-key:${adminSession.token}`);

    // Nothing goes to the tab before it says it is ready, nor to a window that is not that tab.
    expect(tab.postMessage).not.toHaveBeenCalled();
    await readyFrom(window);
    await readyFrom(tab, 'https://evil.example');
    expect(tab.postMessage).not.toHaveBeenCalled();

    await readyFrom(tab);
    expect(tab.postMessage).toHaveBeenCalledWith({ type: 'persona:login-as:ticket', ticket: 'one-time-ticket', email: 'pat@example.com' }, origin);
    expect(tab.postMessage).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(tab.postMessage.mock.calls)).not.toContain(adminSession.token);
  });

  it('offers it for active customers only', async () => {
    stubNewTab();
    renderApp({ route: '/users', session: adminSession, api: api() });
    expect(await screen.findByRole('button', { name: 'Sign in as pat@example.com' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Sign in as root@example.com' })).toBeDisabled();
  });

  it("tells the administrator when the server refuses, and closes the tab it opened", async () => {
    const { tab } = stubNewTab();
    renderApp({
      route: '/users',
      session: adminSession,
      api: api({ 'POST /api/admin/users/login_as': () => json({ status: 'FAIL', errors: ['This account has been disabled. Please contact support.'] }, 403, 'Forbidden') }),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in as pat@example.com' }));
    expect(await screen.findByText('This account has been disabled. Please contact support.')).toBeInTheDocument();
    expect(tab.close).toHaveBeenCalled();
    expect(tab.postMessage).not.toHaveBeenCalled();
  });

  it('says so when the browser blocks the new tab', async () => {
    vi.stubGlobal('open', vi.fn(() => null));
    const { requests } = renderApp({ route: '/users', session: adminSession, api: api() });
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in as pat@example.com' }));
    expect(await screen.findByText(/blocked the new tab/)).toBeInTheDocument();
    expect(requests.some((r) => r.path === '/api/admin/users/login_as')).toBe(false);
  });
});

describe('/users: disabling', () => {
  it("never offers to disable the administrator's own account, and shows the server's refusal for the last admin", async () => {
    const user = userEvent.setup();
    renderApp({
      route: '/users',
      session: adminSession,
      api: {
        'GET /api/admin/users': () =>
          json({
            status: 'OK',
            users: [account(1, 'admin@persona.local', { userType: 'ADMIN', isSelf: true }), account(2, 'other-admin@example.com', { userType: 'ADMIN', isSelf: false })],
            total: 2,
          }),
        'POST /api/admin/users/status': () => json({ status: 'FAIL', errors: ['This is the last active administrator account: enable or create another administrator first.'] }, 409),
      },
    });
    expect(await screen.findByRole('button', { name: /^Disable admin@persona\.local/ })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Disable other-admin@example.com' }));
    await user.click(await screen.findByRole('button', { name: 'Disable' }));
    expect(await screen.findByText(/last active administrator account/)).toBeInTheDocument();
  });
});
