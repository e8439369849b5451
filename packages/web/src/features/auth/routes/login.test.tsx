import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
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

  it('signs an administrator in as a user from ?adminSessionId=&email=, for this tab only', async () => {
    const { requests } = renderApp({
      route: '/login?adminSessionId=admin-sid&email=pat%40example.com',
      api: { 'POST /api/login': loginOk('USER', { adminProxy: true }) },
    });
    await waitFor(() => expect(location()).toBe('/avatars'));
    expect(requests.find((r) => r.path === '/api/login')?.body).toEqual({ email: 'pat@example.com', adminSessionId: 'admin-sid' });
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toContain('USER-session');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(authStore.getSession()?.adminProxy).toBe(true);
    expect(await screen.findByText(/on behalf of an administrator/)).toBeInTheDocument();
  });

  it('shows the failure of an admin login-as with the sign-in form', async () => {
    renderApp({
      route: '/login?adminSessionId=stale&email=pat%40example.com',
      api: { 'POST /api/login': () => json({ status: 'FAIL', errors: ['The administrator session is invalid or has expired.'] }, 401, 'Unauthorized') },
    });
    const panel = await screen.findByRole('alert');
    expect(panel).toHaveTextContent('Sigin In Failed');
    expect(panel).toHaveTextContent('The administrator session is invalid or has expired.');
    expect(screen.getByLabelText('Email')).toBeInTheDocument();
  });
});
