import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { authStore } from '../lib/auth-store';
import { json } from '../test/fetch-mock';
import { adminSession, renderApp, userSession } from '../test/render-app';

const location = () => screen.getByTestId('location').textContent;
const mainNavLabels = () =>
  within(screen.getByRole('navigation', { name: 'Main' }))
    .getAllByRole('link')
    .map((link) => link.textContent?.replace(' (opens in a new tab)', ''));

describe('start-up and redirects', () => {
  it('shows a loader until the public configuration arrives', async () => {
    renderApp({ route: '/login' });
    expect(screen.getByRole('status')).toHaveTextContent('Starting…');
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
  });

  it('offers a retry when the configuration cannot be loaded', async () => {
    renderApp({ route: '/login', api: { 'GET /api/config': () => new Response('', { status: 404 }) } });
    expect(await screen.findByRole('heading', { name: 'The portal is not reachable' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('sends / to /login when signed out, /avatars for users and /onlineusers for admins', async () => {
    const first = renderApp({ route: '/' });
    await waitFor(() => expect(location()).toBe('/login'));
    first.unmount();
    const second = renderApp({ route: '/', session: userSession });
    await waitFor(() => expect(location()).toBe('/avatars'));
    second.unmount();
    renderApp({ route: '/', session: adminSession });
    await waitFor(() => expect(location()).toBe('/onlineusers'));
  });

  it('keeps /signout, /docs and the auth pages public', async () => {
    renderApp({ route: '/docs' });
    expect(await screen.findByRole('heading', { name: 'Persona Studio guide' })).toBeInTheDocument();
    expect(location()).toBe('/docs');
  });

  it('shows a not-found page for unknown routes', async () => {
    renderApp({ route: '/no/such/page' });
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });

  it('sends a visitor to /login when a call answers 401', async () => {
    renderApp({ route: '/account', session: userSession });
    expect(await screen.findByRole('heading', { name: 'Account' })).toBeInTheDocument();
    // Any call that answers 401 (an expired session) signs out ...
    const { apiRequest } = await import('../lib/api-client');
    const { mockFetch } = await import('../test/fetch-mock');
    mockFetch({ 'GET /api/account_info': () => json({ status: 'FAIL', errors: ['Session expired'] }, 401, 'Unauthorized') });
    await apiRequest('/api/account_info').catch(() => undefined);
    // ... and the protected page sends the visitor to sign in.
    await waitFor(() => expect(location()).toBe('/login'));
    expect(authStore.getSession()).toBeNull();
  });
});

describe('shell', () => {
  it('shows the user menu exactly as the spec lists it, Docs opening in a new tab', async () => {
    renderApp({ route: '/avatars', session: userSession });
    await screen.findByRole('heading', { name: 'Avatar Creator' });
    expect(mainNavLabels()).toEqual([
      'Avatar Creator',
      'Conversations',
      'Knowledge Base',
      'Functions',
      'Encryption Keys',
      'Account',
      'Docs',
      'Sign Out',
    ]);
    const docs = within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: /Docs/ });
    expect(docs).toHaveAttribute('href', 'https://docs.example.com/persona');
    expect(docs).toHaveAttribute('target', '_blank');
  });

  it('shows the admin menu exactly as the spec lists it', async () => {
    renderApp({ route: '/onlineusers', session: adminSession });
    await screen.findByRole('heading', { name: 'Online Users' });
    expect(mainNavLabels()).toEqual(['Online Users', 'VPS Status', 'Users', 'Conversations', 'Requests', 'Account', 'Functions review', 'Sign Out']);
  });

  it('shows no menu to signed-out visitors, only Docs and Sign In', async () => {
    renderApp({ route: '/login' });
    await screen.findByRole('button', { name: 'Sign In' });
    expect(mainNavLabels()).toEqual(['Docs', 'Sign In']);
  });

  it('opens the menu as a right-hand drawer from the hamburger button', async () => {
    renderApp({ route: '/avatars', session: userSession });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Open menu' }));
    const drawer = await screen.findByRole('navigation', { name: 'Menu' });
    expect(within(drawer).getAllByRole('link').map((link) => link.textContent)).toEqual([
      'Avatar Creator',
      'Conversations',
      'Knowledge Base',
      'Functions',
      'Encryption Keys',
      'Account',
      'Docs',
      'Sign Out',
    ]);
    expect(screen.getByText('Ursula User')).toBeInTheDocument();
    await user.click(within(drawer).getByRole('link', { name: 'Functions' }));
    await waitFor(() => expect(location()).toBe('/functions'));
  });

  it('shows the copyright with the year and company', async () => {
    renderApp({ route: '/login' });
    expect(await screen.findByText(`© ${new Date().getFullYear()} Acme Avatars Ltd`)).toBeInTheDocument();
  });

  it('hides navbar and footer on /chatWidget/*', async () => {
    renderApp({ route: '/chatWidget/abc/def', session: userSession });
    expect(await screen.findByText('This avatar does not exist or has been deleted.')).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.queryByText(/Acme Avatars Ltd/)).not.toBeInTheDocument();
  });
});

describe('sign out', () => {
  it("calls logout, clears the session and offers 'Login Again'", async () => {
    let release: (response: Response) => void = () => {};
    const { requests } = renderApp({
      route: '/signout',
      session: userSession,
      api: { 'GET /api/logout': () => new Promise<Response>((resolve) => (release = resolve)) },
    });
    expect(await screen.findByRole('heading', { name: 'Signing out...' })).toBeInTheDocument();
    await waitFor(() => expect(requests.some((r) => r.path === '/api/logout')).toBe(true));
    expect(requests.find((r) => r.path === '/api/logout')?.headers.authorization).toBe('Bearer test-app-key:user-token');
    release(json({ status: 'OK' }));
    expect(await screen.findByRole('heading', { name: 'You have been logged out' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Login Again' })).toHaveAttribute('href', '/login');
    expect(authStore.getSession()).toBeNull();
    expect(window.localStorage.length).toBe(0);
  });

  it('clears the session even when the logout call fails', async () => {
    renderApp({ route: '/signout', session: userSession, api: { 'GET /api/logout': () => Promise.reject(new TypeError('offline')) } });
    expect(await screen.findByRole('heading', { name: 'You have been logged out' })).toBeInTheDocument();
    expect(authStore.getSession()).toBeNull();
    expect(window.localStorage.length).toBe(0);
  });
});
