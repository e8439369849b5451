import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AUTH_STORAGE_KEY, authStore } from '../../../lib/auth-store';
import { json } from '../../../test/fetch-mock';
import { futureIso, renderApp } from '../../../test/render-app';

const loginOk = (userType: 'ADMIN' | 'USER', over: Record<string, unknown> = {}) => () =>
  json({ status: 'OK', sessionId: `${userType}-session`, userName: 'Pat', expiryDate: futureIso(), userType, adminProxy: false, ...over });

async function fillAndSubmit(email: string, password: string) {
  const user = userEvent.setup();
  const submit = await screen.findByRole('button', { name: 'Sign In' });
  if (email) await user.type(screen.getByLabelText('Email'), email);
  if (password) await user.type(screen.getByLabelText('Password'), password);
  await user.click(submit);
  return user;
}

const location = () => screen.getByTestId('location').textContent;

describe('sign-in page', () => {
  it('says which fields are missing and does not call the server', async () => {
    const { requests } = renderApp({ route: '/login' });
    await fillAndSubmit('', '');
    expect(await screen.findByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(requests.some((r) => r.path === '/api/login')).toBe(false);
  });

  it("says 'Email is Invalid' for a malformed address", async () => {
    renderApp({ route: '/login' });
    await fillAndSubmit('not-an-email', 'secret');
    expect(await screen.findByText('Email is Invalid')).toBeInTheDocument();
    expect(screen.queryByText('Password is required')).not.toBeInTheDocument();
  });

  it("lists the server's errors in a 'Sigin In Failed' panel", async () => {
    renderApp({
      route: '/login',
      api: { 'POST /api/login': () => json({ status: 'FAIL', errors: ['Invalid email or password.'] }, 401, 'Unauthorized') },
    });
    await fillAndSubmit('pat@example.com', 'wrong-password');
    const panel = await screen.findByRole('alert');
    expect(panel).toHaveTextContent('Sigin In Failed');
    expect(panel).toHaveTextContent('Invalid email or password.');
    expect(location()).toBe('/login');
  });

  it('shows the gateway text when the answer is not a FAIL answer with errors', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderApp({
      route: '/login',
      api: { 'POST /api/login': () => new Response('upstream down', { status: 503, statusText: 'Service Unavailable' }) },
    });
    await fillAndSubmit('pat@example.com', 'a-password');
    expect(await screen.findByRole('alert')).toHaveTextContent('Error Code: 503#Service Unavailable#Unable to reach gateway');
  });

  it('sends e-mail and password with the app key only, then takes a user to /avatars', async () => {
    const { requests } = renderApp({ route: '/login', api: { 'POST /api/login': loginOk('USER') } });
    await fillAndSubmit('pat@example.com', 'a-password');
    await waitFor(() => expect(location()).toBe('/avatars'));
    const login = requests.find((r) => r.path === '/api/login');
    expect(login?.body).toEqual({ email: 'pat@example.com', password: 'a-password' });
    expect(login?.headers.authorization).toBe('Bearer test-app-key');
    expect(await screen.findByRole('heading', { name: 'Avatar Creator' })).toBeInTheDocument();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toContain('USER-session');
  });

  it('takes an administrator to /onlineusers', async () => {
    renderApp({ route: '/login', api: { 'POST /api/login': loginOk('ADMIN') } });
    await fillAndSubmit('admin@example.com', 'a-password');
    await waitFor(() => expect(location()).toBe('/onlineusers'));
  });

  it('keeps the session for this tab only when Remember me is off', async () => {
    renderApp({ route: '/login', api: { 'POST /api/login': loginOk('USER') } });
    const user = userEvent.setup();
    const remember = await screen.findByRole('checkbox', { name: 'Remember me' });
    expect(remember).toBeChecked();
    await user.click(remember);
    await fillAndSubmit('pat@example.com', 'a-password');
    await waitFor(() => expect(location()).toBe('/avatars'));
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toContain('USER-session');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('returns to the protected page the visitor asked for', async () => {
    renderApp({ route: '/knowledgeBase?tab=files', api: { 'POST /api/login': loginOk('ADMIN') } });
    await waitFor(() => expect(location()).toBe('/login'));
    await fillAndSubmit('pat@example.com', 'a-password');
    await waitFor(() => expect(location()).toBe('/knowledgeBase?tab=files'));
    expect(await screen.findByRole('heading', { name: 'Knowledge Base' })).toBeInTheDocument();
  });

  it('offers Register only when registration is allowed', async () => {
    const first = renderApp({ route: '/login' });
    expect(await screen.findByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgotpassword');
    expect(screen.queryByRole('link', { name: 'Register' })).not.toBeInTheDocument();
    first.unmount();
    renderApp({ route: '/login', config: { allowRegistration: true } });
    expect(await screen.findByRole('link', { name: 'Register' })).toHaveAttribute('href', '/register');
  });

  it('no longer signs anybody in from an address: ?adminSessionId=&email= shows the sign-in form', async () => {
    const { requests } = renderApp({ route: '/login?adminSessionId=admin-sid&email=pat%40example.com', api: { 'POST /api/login': loginOk('USER') } });
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    expect(requests.some((r) => r.path === '/api/login')).toBe(false);
  });
});

describe('admin login-as tab (/login-as)', () => {
  const origin = window.location.origin;
  /** The Users page's tab, as this tab sees it: window.opener. */
  const stubOpener = () => {
    const opener = { postMessage: vi.fn() };
    vi.stubGlobal('opener', opener);
    return opener;
  };
  const deliver = (data: unknown, from: unknown, fromOrigin = origin) =>
    act(() => {
      window.dispatchEvent(new MessageEvent('message', { data, origin: fromOrigin, source: from as Window }));
    });

  it('tells its opener it is ready, redeems the ticket it hands over in the login body, for this tab only', async () => {
    const opener = stubOpener();
    const { requests } = renderApp({ route: '/login-as', api: { 'POST /api/login': loginOk('USER', { adminProxy: true }) } });
    await waitFor(() => expect(opener.postMessage).toHaveBeenCalledWith({ type: 'persona:login-as:ready' }, origin));
    expect(requests.some((r) => r.path === '/api/login')).toBe(false);

    // Messages from elsewhere are ignored: another window of this origin, the opener from another origin.
    await deliver({ type: 'persona:login-as:ticket', email: 'mallory@example.com', ticket: 'forged' }, window);
    await deliver({ type: 'persona:login-as:ticket', email: 'mallory@example.com', ticket: 'forged' }, opener, 'https://evil.example');
    expect(requests.some((r) => r.path === '/api/login')).toBe(false);

    await deliver({ type: 'persona:login-as:ticket', email: 'pat@example.com', ticket: 'one-time-ticket' }, opener);
    await waitFor(() => expect(location()).toBe('/avatars'));
    const login = requests.find((r) => r.path === '/api/login');
    expect(login?.body).toEqual({ email: 'pat@example.com', adminSessionId: 'one-time-ticket' });
    expect(login?.headers.authorization).toBe('Bearer test-app-key');
    // Nothing secret in any address this tab went through.
    expect(requests.every((r) => !r.path.includes('one-time-ticket'))).toBe(true);
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toContain('USER-session');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(authStore.getSession()?.adminProxy).toBe(true);
    expect(await screen.findByText(/on behalf of an administrator/)).toBeInTheDocument();
  });

  it('shows the failure of the sign-in with the sign-in form', async () => {
    const opener = stubOpener();
    renderApp({
      route: '/login-as',
      api: { 'POST /api/login': () => json({ status: 'FAIL', errors: ['This sign-in as a user is invalid, was already used or has expired. Start again from the Users page.'] }, 401, 'Unauthorized') },
    });
    await waitFor(() => expect(opener.postMessage).toHaveBeenCalled());
    await deliver({ type: 'persona:login-as:ticket', email: 'pat@example.com', ticket: 'spent' }, opener);
    const panel = await screen.findByRole('alert');
    expect(panel).toHaveTextContent('Sigin In Failed');
    expect(panel).toHaveTextContent('was already used or has expired');
    expect(screen.getByLabelText('Email')).toBeInTheDocument();
  });

  it("shows what the Users page reports when it could not get a ticket", async () => {
    const opener = stubOpener();
    const { requests } = renderApp({ route: '/login-as' });
    await waitFor(() => expect(opener.postMessage).toHaveBeenCalled());
    await deliver({ type: 'persona:login-as:failed', errors: ['Administrators cannot be signed in as; only customer accounts can.'] }, opener);
    expect(await screen.findByRole('alert')).toHaveTextContent('Administrators cannot be signed in as');
    expect(requests.some((r) => r.path === '/api/login')).toBe(false);
  });

  it('says how to use it when it was not opened by the Users page', async () => {
    vi.stubGlobal('opener', null);
    renderApp({ route: '/login-as' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Open this page with "Sign in as" on the Users page of the portal.');
  });
});
