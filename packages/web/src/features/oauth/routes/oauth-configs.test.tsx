import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { OAuthMessages, type TOAuthApp } from '@persona/contract';
import { json, type RecordedRequest } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';

/** Pages are loaded lazily: the first wait can take a while on a busy machine. */
const FIRST_LOAD = { timeout: 10_000 };
// These walk through whole pages with many steps: give them room when every project runs at once.
vi.setConfig({ testTimeout: 60_000 });

const app: TOAuthApp = {
  appId: 100,
  appName: 'Staff sign-in',
  partner: 'Google',
  clientId: '1234567890-abcdefghijklmnopqrstuvwxyz.apps.googleusercontent.com',
  clientSecret: '••••WXYZ',
  oauthURL: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenIssueURL: 'https://oauth2.googleapis.com/token',
  callbackURL: 'http://localhost/api/oauth/callback/100',
  created: '2026-05-01T10:00:00.000Z',
  updated: '2026-05-01T10:00:00.000Z',
};

const api = (list: TOAuthApp[]) => ({
  'GET /api/list_oauthapp': () => json({ status: 'OK', oauthApps: list }),
  'POST /api/add_oauthapp': (r: RecordedRequest) => {
    const body = r.body as Partial<TOAuthApp>;
    const saved = { ...app, ...body, appId: body.appId ?? 101, clientSecret: '••••cret' };
    return json({ status: 'OK', updated: saved.updated, oauthApp: saved, errors: [] });
  },
  'POST /api/del_oauthapp': () => json({ status: 'OK', appId: 100, errors: [] }),
});

describe('/oauthconfigs', () => {
  it('shows configs as cards, cutting client values longer than 30 characters with an ellipsis', async () => {
    renderApp({ route: '/oauthconfigs', session: userSession, api: api([app]) });
    const card = await screen.findByRole('listitem', { name: 'Staff sign-in' }, FIRST_LOAD);
    expect(within(card).getByText(`${app.clientId.slice(0, 30)}…`)).toBeInTheDocument();
    expect(within(card).getByText('••••WXYZ')).toBeInTheDocument();
    expect(within(card).getByText(app.callbackURL)).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Edit Staff sign-in' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create OAuth Config' })).toHaveAttribute('href', '/addoauthapp');
  });

  it("says 'No OAuth Configs found.' when there are none", async () => {
    renderApp({ route: '/oauthconfigs', session: userSession, api: api([]) });
    expect(await screen.findByText(OAuthMessages.emptyList, undefined, FIRST_LOAD)).toBeInTheDocument();
  });

  it('edits in the wizard (Callback URL step, secret kept when empty)', async () => {
    const { requests } = renderApp({ route: '/oauthconfigs', session: userSession, api: api([app]) });
    await userEvent.click(await screen.findByRole('button', { name: 'Edit Staff sign-in' }, FIRST_LOAD));
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByRole('tab', { name: 'Callback URL' })).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('tab', { name: 'OAuth Details' }));
    expect(within(dialog).getByText('Leave empty to keep the current secret (••••WXYZ).')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(requests.find((r) => r.path === '/api/add_oauthapp')?.body).toMatchObject({ appId: 100, clientSecret: '' }));
    expect(await within(dialog).findByText(OAuthMessages.updated, undefined, FIRST_LOAD)).toBeInTheDocument();
  });

  it('asks for the client secret again when an endpoint changes', async () => {
    const { requests } = renderApp({ route: '/oauthconfigs', session: userSession, api: api([app]) });
    await userEvent.click(await screen.findByRole('button', { name: 'Edit Staff sign-in' }, FIRST_LOAD));
    const dialog = screen.getByRole('dialog');
    await userEvent.click(within(dialog).getByRole('tab', { name: 'OAuth Details' }));
    const tokenUrl = within(dialog).getByLabelText('Token Issue URL');
    await userEvent.clear(tokenUrl);
    await userEvent.type(tokenUrl, 'https://login.example.com/token');
    // The secret field says so before Submit, and Submit is refused without it.
    expect(within(dialog).getByText(OAuthMessages.clientSecretReenter)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(within(dialog).getByLabelText('Client Secret')).toHaveAttribute('aria-invalid', 'true'));
    expect(requests.some((r) => r.path === '/api/add_oauthapp')).toBe(false);

    await userEvent.type(within(dialog).getByLabelText('Client Secret'), 'GOCSPX-new-secret');
    await waitFor(() => expect(within(dialog).getByLabelText('Client Secret')).toHaveAttribute('aria-invalid', 'false'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Submit' }));
    await waitFor(() =>
      expect(requests.find((r) => r.path === '/api/add_oauthapp')?.body).toMatchObject({ appId: 100, clientSecret: 'GOCSPX-new-secret', tokenIssueURL: 'https://login.example.com/token' }),
    );
    expect(await within(dialog).findByText(OAuthMessages.updated, undefined, FIRST_LOAD)).toBeInTheDocument();
  });

  it('shows the server’s refusal when the endpoints changed without the secret', async () => {
    const refusing = {
      ...api([app]),
      'POST /api/add_oauthapp': () => json({ status: 'FAIL', errors: [OAuthMessages.clientSecretReenter], failReason: 7 }, 400),
    };
    renderApp({ route: '/oauthconfigs', session: userSession, api: refusing });
    await userEvent.click(await screen.findByRole('button', { name: 'Edit Staff sign-in' }, FIRST_LOAD));
    const dialog = screen.getByRole('dialog');
    await userEvent.click(within(dialog).getByRole('tab', { name: 'OAuth Details' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Submit' }));
    expect(await within(dialog).findByRole('alert', undefined, FIRST_LOAD)).toHaveTextContent(OAuthMessages.clientSecretReenter);
  });

  it('deletes after confirmation', async () => {
    const { requests } = renderApp({ route: '/oauthconfigs', session: userSession, api: api([app]) });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete Staff sign-in' }, FIRST_LOAD));
    const dialog = screen.getByRole('dialog');
    expect(dialog).toHaveTextContent(OAuthMessages.deleteConfirm('Staff sign-in'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(OAuthMessages.deleted, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/del_oauthapp')?.body).toEqual({ appId: 100, mode: 'delete' });
  });
});

describe('/addoauthapp', () => {
  it('validates each step on Next, opens steps by their title and submits after the last step', async () => {
    const { requests } = renderApp({ route: '/addoauthapp', session: userSession, api: api([]) });
    expect(await screen.findByRole('link', { name: /Need help/ }, FIRST_LOAD)).toHaveAttribute('href', '/oauthhelp');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText(OAuthMessages.nameRequired, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(screen.getByText(OAuthMessages.partnerRequired)).toBeInTheDocument();
    // Clicking the second step's title checks the first step before it opens.
    await userEvent.click(screen.getByRole('tab', { name: 'OAuth Details' }));
    expect(screen.getByLabelText('Name')).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('Name'), 'Customers');
    expect(screen.queryByText(OAuthMessages.nameRequired)).not.toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('OAuth Identity Service'));
    await userEvent.click(await screen.findByRole('option', { name: 'Google' }, FIRST_LOAD));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));

    // Google's endpoints are filled in; the client id and secret are required.
    expect(await screen.findByLabelText('OAuth URL', undefined, FIRST_LOAD)).toHaveValue('https://accounts.google.com/o/oauth2/v2/auth');
    expect(screen.getByLabelText('Token Issue URL')).toHaveValue('https://oauth2.googleapis.com/token');
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(OAuthMessages.clientIdRequired, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(screen.getByText(OAuthMessages.clientSecretRequired)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Client Id'), 'client-1');
    await userEvent.type(screen.getByLabelText('Client Secret'), 'secret-1');
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));

    await waitFor(() =>
      expect(requests.find((r) => r.path === '/api/add_oauthapp')?.body).toEqual({
        appId: null,
        appName: 'Customers',
        partner: 'Google',
        clientId: 'client-1',
        clientSecret: 'secret-1',
        oauthURL: 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenIssueURL: 'https://oauth2.googleapis.com/token',
      }),
    );
    expect(await screen.findByText(OAuthMessages.created, undefined, FIRST_LOAD)).toBeInTheDocument();
  });
});
