import { describe, expect, it, vi } from 'vitest';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';
import { agent, creatorApi, multipartJson } from './fixtures';

// The editor's tabs are loaded on demand: give them time on a busy machine.
configure({ asyncUtilTimeout: 15_000 });
vi.setConfig({ testTimeout: 60_000 });

const location = () => screen.getByTestId('location').textContent;

async function openEditor(user: ReturnType<typeof userEvent.setup>, name = 'Maya Helper') {
  const card = await screen.findByTestId('avatar-card-101');
  await user.click(within(card).getByRole('button', { name: `Expand ${name}` }));
  await user.click(within(card).getByRole('button', { name: 'Edit' }));
  return screen.findByRole('region', { name: 'Edit avatar' });
}

/** Types a whole value at once (a paste): key-by-key typing is slow on a loaded machine. */
async function fill(user: ReturnType<typeof userEvent.setup>, field: HTMLElement, value: string) {
  await user.click(field);
  await user.paste(value);
}

function v2Calls(fetchMock: { mock: { calls: unknown[][] } }) {
  return fetchMock.mock.calls.filter(([url]) => String(url).endsWith('/api/add_avatar_v2'));
}

describe('avatar list', () => {
  it("shows 'Fetching Agents...' and then the cards, newest first", async () => {
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent(), agent({ id: 102, name: 'Leo Desk' })]) });
    expect(await screen.findByText('Fetching Agents...')).toBeInTheDocument();
    expect(await screen.findByText('Maya Helper')).toBeInTheDocument();
    expect(screen.getByText('Leo Desk')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Avatar Creator' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'START' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Search by avatar ID' })).not.toBeInTheDocument();
  });

  it("says '1 of 3 avatars' by START, and at the plan's limit turns START off with the upgrade link", async () => {
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    expect(await screen.findByText('1 of 3 avatars')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'START' })).toBeEnabled();
    expect(screen.queryByRole('link', { name: 'upgrade' })).not.toBeInTheDocument();
  });

  it('at the limit START is disabled and says why before any form is filled in', async () => {
    const { account } = await import('./fixtures');
    const atLimit = account(1);
    atLimit.accountDetails.maxAvatars = 1;
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()], { 'GET /api/account_info': () => json(atLimit) }) });
    expect(await screen.findByText('1 of 1 avatars')).toBeInTheDocument();
    const start = screen.getByRole('button', { name: 'START' });
    expect(start).toBeDisabled();
    expect(start).toHaveAccessibleDescription(/1 of 1 avatars.*maximum number of avatars for your plan/);
    expect(screen.getByRole('link', { name: 'upgrade' })).toHaveAttribute('href', '/account');
  });

  it("selects an avatar by a click on its card's body, and shows its appearance's picture", async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent(), agent({ id: 102, name: 'Leo Desk', avatarPhotoURL: '/files/avatars/7/leo.jpg' })]) });
    const card = await screen.findByTestId('avatar-card-101');
    // No photo of its own: the picture of the appearance it was made from (Maya), not an initial.
    await waitFor(() => expect(card.querySelector('img')).toHaveAttribute('src', '/catalog/thumbs/maya.svg'));
    expect(screen.getByTestId('avatar-card-102').querySelector('img')).toHaveAttribute('src', '/files/avatars/7/leo.jpg');
    await user.click(within(card).getByText('Maya Helper'));
    expect(await screen.findByRole('region', { name: 'Edit avatar' })).toBeInTheDocument();
    expect(await within(screen.getByTestId('avatar-card-101')).findByRole('button', { name: 'Save' })).toBeInTheDocument();
  });

  it('an avatar wearing its own uploaded model does not show the catalogue look it keeps as parent (issue 26)', async () => {
    const own = agent({ id: 103, name: 'Own Model', avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Avatar: { modelURL: '/files/avatar-models/7/me.glb', format: 'glb' } }) });
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent(), own]) });
    const card = await screen.findByTestId('avatar-card-103');
    // The catalogue's pictures are loaded (the other card shows Maya's), and this one shows the model's sign.
    await waitFor(() => expect(screen.getByTestId('avatar-card-101').querySelector('img')).toHaveAttribute('src', '/catalog/thumbs/maya.svg'));
    expect(card.querySelector('img')).toBeNull();
    expect(within(card).getByTestId('own-model-picture')).toHaveAttribute('title', 'Your own 3D model');
  });

  it('says the agents could not be fetched when the list fails', async () => {
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([], { 'GET /api/list_avatar': () => json({ status: 'FAIL', errors: ['nope'] }, 400) }) });
    expect(await screen.findByText(/Failed to fetch agents\. Please verify\.\.\.: No Agents Found in your account/)).toBeInTheDocument();
  });

  it('filters by avatar id substring with showSearchBar=true', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars?showSearchBar=true', session: userSession, api: creatorApi([agent(), agent({ id: 245, name: 'Leo Desk' })]) });
    const search = await screen.findByRole('textbox', { name: 'Search by avatar ID' });
    await screen.findByText('Maya Helper');
    await user.type(search, '24');
    expect(screen.queryByText('Maya Helper')).not.toBeInTheDocument();
    expect(screen.getByText('Leo Desk')).toBeInTheDocument();
    await user.clear(search);
    await user.type(search, '9');
    expect(await screen.findByText('No avatar ID contains "9".')).toBeInTheDocument();
  });

  it('shows the online users with session ids cut to 20 characters', async () => {
    const user = userEvent.setup();
    const sessionId = 'abcdefghijklmnopqrstuvwxyz-0123456789';
    renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], {
        'POST /api/list_avatar_users': () =>
          json({
            agentId: 101,
            status: 'OK',
            onlineUsers: [{ sessionId, userName: 'Visitor', deviceOS: 'Linux', onlineStatus: 'online', locale: 'en-US', lastConnectTimeStamp: Date.now(), ipAddress: '10.0.0.1', spokenLanguage: 'en' }],
          }),
      }),
    });
    const card = await screen.findByTestId('avatar-card-101');
    await user.click(within(card).getByRole('button', { name: 'Expand Maya Helper' }));
    await user.click(within(card).getByRole('button', { name: /online users, show details/ }));
    const dialog = await screen.findByRole('dialog', { name: /Online Users/ });
    expect(await within(dialog).findByText('abcdefghijklmnopqrst')).toBeInTheDocument();
    expect(within(dialog).queryByText(sessionId)).not.toBeInTheDocument();
  });
});

describe('delete dialog', () => {
  it('asks with the exact text, deletes, says so and closes after 2000 ms', async () => {
    const user = userEvent.setup();
    const { requests } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], { 'POST /api/del_avatar': () => json({ status: 'OK', agentId: 101, errors: [] }) }),
    });
    const card = await screen.findByTestId('avatar-card-101');
    await user.click(within(card).getByRole('button', { name: 'Expand Maya Helper' }));
    await user.click(within(card).getByRole('button', { name: 'Delete Maya Helper' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Are you sure you want to delete Maya Helper? This action will delete Avatar permanently and cannot be undone.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByText('Deleted Successfully!')).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/del_avatar')?.body).toEqual({ agentId: 101, mode: 'delete' });
    const shownAt = Date.now();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 4000 });
    expect(Date.now() - shownAt).toBeGreaterThanOrEqual(1900);
    expect(screen.queryByTestId('avatar-card-101')).not.toBeInTheDocument();
  });

  it('lists the server errors under the failure text', async () => {
    const user = userEvent.setup();
    renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], { 'POST /api/del_avatar': () => json({ status: 'FAIL', errors: ['Avatar not found.'] }, 404) }),
    });
    const card = await screen.findByTestId('avatar-card-101');
    await user.click(within(card).getByRole('button', { name: 'Expand Maya Helper' }));
    await user.click(within(card).getByRole('button', { name: 'Delete Maya Helper' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByText(/Error! Unable to delete avatar\./)).toBeInTheDocument();
    expect(within(dialog).getByText('Avatar not found.')).toBeInTheDocument();
  });
});

describe('editor tabs', () => {
  it('keeps the last four tabs disabled until an avatar is being edited', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    await screen.findByText('Maya Helper');
    await user.click(screen.getByRole('button', { name: 'START' }));
    const panel = await screen.findByRole('region', { name: 'Create avatar' });
    for (const name of ['Environment', 'Brain', 'ADVANCED', 'EMBED']) expect(within(panel).getByRole('tab', { name })).toBeDisabled();
    expect(within(panel).getByRole('tab', { name: 'APPEARANCE' })).toBeEnabled();
  });

  it('refuses to leave an invalid tab with the spec text, and shows the field message', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('tab', { name: 'ADVANCED' }));
    const wakeUp = await within(panel).findByRole('textbox', { name: 'Wake Up Message' });
    await user.clear(wakeUp);
    await user.click(within(panel).getByRole('tab', { name: 'EMBED' }));
    expect(await screen.findByText('Some fields are invalid. Please correct them before changing tabs.')).toBeInTheDocument();
    expect(within(panel).getByText('Wake Up Message is required')).toBeInTheDocument();
    expect(within(panel).getByRole('tab', { name: 'ADVANCED' })).toHaveAttribute('aria-selected', 'true');
  });

  it('checks the limits: a number, -1 or above 0', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('tab', { name: 'ADVANCED' }));
    const perSession = await within(panel).findByRole('textbox', { name: 'Daily Limit Per Session' });
    // Where access is set, the OAuth configs page (in no menu) is linked.
    expect(within(within(panel).getByRole('region', { name: 'Access' })).getByRole('link', { name: 'OAuth configs' })).toHaveAttribute('href', '/oauthconfigs');
    await user.clear(perSession);
    await user.type(perSession, '0');
    await user.tab();
    expect(await within(panel).findByText('Daily Limit Per Session must be greater than 0 or -1 for unlimited')).toBeInTheDocument();
    await user.clear(perSession);
    await user.tab();
    expect(await within(panel).findByText('Daily Limit Per Session is required')).toBeInTheDocument();
    const duration = within(panel).getByRole('textbox', { name: 'Interrupt speech duration' });
    await user.clear(duration);
    await user.type(duration, 'abc');
    await user.tab();
    expect(await within(panel).findByText('Must be a number')).toBeInTheDocument();
  });
});

describe('Unlimited checkboxes', () => {
  it('set -1, restore the previous value, and restore 600 when the stored value was unlimited', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], { 'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: agent({ version: 4 }) }) }),
    });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('tab', { name: 'ADVANCED' }));
    const perSession = await within(panel).findByRole('textbox', { name: 'Daily Limit Per Session' });
    expect(perSession).toHaveValue('900');
    const sessionUnlimited = within(panel).getByRole('checkbox', { name: 'Daily Limit Per Session Unlimited' });
    await user.click(sessionUnlimited);
    expect(perSession).toHaveValue('Unlimited');
    expect(perSession).toBeDisabled();
    await user.click(sessionUnlimited);
    expect(perSession).toHaveValue('900');

    // Stored -1: unticking gives 600.
    const perIp = within(panel).getByRole('textbox', { name: 'Daily Limit Per IP' });
    expect(perIp).toHaveValue('Unlimited');
    await user.click(within(panel).getByRole('checkbox', { name: 'Daily Limit Per IP Unlimited' }));
    expect(perIp).toHaveValue('600');

    await user.click(within(panel).getByRole('checkbox', { name: 'Demo duration Unlimited' }));
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm Update' });
    expect(confirm).toHaveTextContent('Update the advanced settings of Maya Helper');
    await user.click(within(confirm).getByRole('button', { name: 'Update' }));
    await screen.findByText('Updated Successfully');
    const [call] = v2Calls(fetchMock);
    const sent = await multipartJson(call?.[1] as RequestInit);
    expect(sent).toMatchObject({ id: 101, version: 3, dailyLimitPerSession: 900, dailyLimitPerIP: 600, dailyLimits: { Demo: -1 } });
    // The brain's stored fields (masked secrets included) go back untouched.
    expect(sent.customData).toMatchObject({ agent_pipeline_config: { llm: { api_key: '••••1234' } } });
    expect(sent).not.toHaveProperty('mediaDetails');
  });
});

describe('OAuth and billing (spec "OAuth on avatar")', () => {
  const oauthApp = {
    appId: 7,
    appName: 'Staff login',
    partner: 'Google',
    clientId: 'client',
    clientSecret: '••••abcd',
    oauthURL: 'https://accounts.example/auth',
    tokenIssueURL: 'https://accounts.example/token',
    callbackURL: 'http://localhost/api/oauth/callback/7',
    created: '2026-11-01T00:00:00.000Z',
    updated: '2026-11-01T00:00:00.000Z',
  };

  it('requires a config with OAuth on and a header with a billing URL, then saves them', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], {
        'GET /api/list_oauthapp': () => json({ status: 'OK', oauthApps: [oauthApp] }),
        'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: agent({ version: 4 }) }),
      }),
    });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('tab', { name: 'ADVANCED' }));
    const section = await within(panel).findByRole('region', { name: 'Sign-in and billing' });
    expect(within(section).getByRole('link', { name: 'Manage OAuth configs' })).toHaveAttribute('href', '/oauthconfigs');
    await user.click(within(section).getByRole('switch', { name: 'OAuth sign-in' }));
    await fill(user, within(section).getByRole('textbox', { name: 'Billing Auth URL' }), 'not a url');

    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Invalid advance tab form')).toBeInTheDocument();
    expect(within(section).getByText('OAuth config is required when OAuth is enabled')).toBeInTheDocument();
    expect(within(section).getByText('Billing Auth URL must be a valid URL')).toBeInTheDocument();

    const url = within(section).getByRole('textbox', { name: 'Billing Auth URL' });
    await user.clear(url);
    await fill(user, url, 'https://billing.example/check');
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await within(section).findByText('Billing Auth Header is required when a Billing Auth URL is given')).toBeInTheDocument();

    await user.click(within(section).getByRole('combobox', { name: 'OAuth Config' }));
    await user.click(await screen.findByRole('option', { name: 'Staff login (Google)' }));
    await fill(user, within(section).getByRole('textbox', { name: 'Billing Auth Header' }), 'Bearer site-secret');
    const ping = within(section).getByRole('textbox', { name: 'Billing Auth Ping Time' });
    expect(ping).toHaveValue('30');
    await user.clear(ping);
    await fill(user, ping, '60');
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Confirm Update' })).getByRole('button', { name: 'Update' }));
    await screen.findByText('Updated Successfully');
    const [call] = v2Calls(fetchMock);
    expect(await multipartJson(call?.[1] as RequestInit)).toMatchObject({
      oauthEnabled: 1,
      partnerOauthAppId: 7,
      billingAuthURL: 'https://billing.example/check',
      billingAuthHeader: 'Bearer site-secret',
      billingAuthPingTime: 60,
    });
  });

  it('shows the stored settings, keeps a masked header as it is, and refuses a ping time out of range', async () => {
    const user = userEvent.setup();
    renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent({ oauthEnabled: 1, partnerOauthAppId: 7, billingAuthURL: 'https://billing.example/check', billingAuthHeader: '••••cret', billingAuthPingTime: 45 })], {
        'GET /api/list_oauthapp': () => json({ status: 'OK', oauthApps: [oauthApp] }),
      }),
    });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('tab', { name: 'ADVANCED' }));
    const section = await within(panel).findByRole('region', { name: 'Sign-in and billing' });
    expect(within(section).getByRole('switch', { name: 'OAuth sign-in' })).toBeChecked();
    expect(await within(section).findByRole('combobox', { name: 'OAuth Config' })).toHaveTextContent('Staff login (Google)');
    expect(within(section).getByRole('textbox', { name: 'Billing Auth Header' })).toHaveValue('••••cret');
    const ping = within(section).getByRole('textbox', { name: 'Billing Auth Ping Time' });
    expect(ping).toHaveValue('45');
    await user.clear(ping);
    await fill(user, ping, '2');
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await within(section).findByText('Must be between 5 and 3600 seconds')).toBeInTheDocument();
  });
});

describe('allowed origins (sites that may embed the avatar)', () => {
  it('takes one origin per line, refuses a path, and saves the list', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent({ allowedOrigins: ['https://shop.example'] })], { 'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: agent({ version: 4 }) }) }),
    });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('tab', { name: 'ADVANCED' }));
    const box = await within(panel).findByRole('textbox', { name: 'Allowed origins' });
    expect(box).toHaveValue('https://shop.example');
    await fill(user, box, '\nhttps://www.example.com/page');
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await within(panel).findByText('Each allowed origin must be a site address such as https://www.example.com (no path)')).toBeInTheDocument();
    await user.clear(box);
    await fill(user, box, 'https://shop.example\n\nhttp://localhost:8080/');
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Confirm Update' })).getByRole('button', { name: 'Update' }));
    await screen.findByText('Updated Successfully');
    const [call] = v2Calls(fetchMock);
    expect((await multipartJson(call?.[1] as RequestInit)).allowedOrigins).toEqual(['https://shop.example', 'http://localhost:8080']);
  });
});

describe('save errors', () => {
  it('shows StaleRequest as a persistent message with Reload Page', async () => {
    const user = userEvent.setup();
    renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], {
        'POST /api/add_avatar_v2': () => json({ status: 'FAIL', errors: ['Avatar data is outdated. It may have been updated from another instance.'], failReason: 15 }, 409),
      }),
    });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Confirm Update' })).getByRole('button', { name: 'Update' }));
    const alert = await within(panel).findByText('Avatar data is outdated. It may have been updated from another instance.');
    expect(alert).toBeInTheDocument();
    expect(await within(panel).findByRole('button', { name: 'Reload Page' })).toBeInTheDocument();
  });

  it('shows AvatarCreateLimitReached with a close button and an upgrade link to the account page', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], {
        'POST /api/add_avatar_v2': () => json({ status: 'FAIL', errors: ['You have reached the maximum number of avatars for your plan.'], failReason: 10 }, 403),
      }),
    });
    await screen.findByText('Maya Helper');
    await user.click(screen.getByRole('button', { name: 'START' }));
    const panel = await screen.findByRole('region', { name: 'Create avatar' });
    await user.click(await within(panel).findByRole('radio', { name: 'Leo' }));
    expect(within(panel).getByRole('textbox', { name: 'Avatar Name' })).toHaveValue('Leo');
    await user.click(screen.getByRole('button', { name: 'CREATE AVATAR' }));
    const upgrade = await within(panel).findByRole('link', { name: 'upgrade' });
    expect(upgrade.closest('[role="alert"]')).toHaveTextContent('You have reached the maximum number of avatars for your plan.');
    const [call] = v2Calls(fetchMock);
    const sent = await multipartJson(call?.[1] as RequestInit);
    expect(sent).toMatchObject({ name: 'Leo', dhType: 2, nlpEngine: 0 });
    expect(JSON.parse(String(sent.avatarJson))).toEqual({ ParentConfig: '/catalog/avatar-configs/leo-upper.json' });
    expect(upgrade).toHaveAttribute('href', '/account');
    const banner = upgrade.closest('[role="alert"]') as HTMLElement;
    await user.click(within(banner).getByRole('button', { name: 'Close' }));
    expect(within(panel).queryByRole('link', { name: 'upgrade' })).not.toBeInTheDocument();
  });

  it('joins InvalidOrMissingParams field messages with commas', async () => {
    const user = userEvent.setup();
    renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], {
        'POST /api/add_avatar_v2': () => json({ status: 'FAIL', errors: ['Config URL must be a valid URL', 'JSON is invalid'], failReason: 7 }, 400),
      }),
    });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Confirm Update' })).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Config URL must be a valid URL, JSON is invalid')).toBeInTheDocument();
  });

  it("refuses to save an invalid Advanced form with 'Invalid advance tab form'", async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent({ wakeUpMessage: '' })]) });
    const panel = await openEditor(user);
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Invalid advance tab form')).toBeInTheDocument();
    expect(within(panel).getByRole('tab', { name: 'ADVANCED' })).toHaveAttribute('aria-selected', 'true');
    expect(v2Calls(fetchMock)).toHaveLength(0);
  });
});

describe('unsaved changes and creation', () => {
  it('asks Unsaved Changes (Discard/Save) before closing an edited avatar', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    const panel = await openEditor(user);
    const name = within(screen.getByTestId('avatar-card-101')).getByRole('textbox', { name: 'Avatar Name' });
    await user.clear(name);
    await user.type(name, 'Maya Renamed');
    expect(within(panel).getByText('Unsaved changes')).toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Close' }));
    const dialog = await screen.findByRole('dialog', { name: 'Unsaved Changes' });
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Discard' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Edit avatar' })).not.toBeInTheDocument());
    expect(screen.getByText('Maya Helper')).toBeInTheDocument();
  });

  it('asks for an appearance when START is pressed again without one', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([]) });
    expect(await screen.findByText('No avatars yet. Click START to create your first one.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'START' }));
    await screen.findByRole('region', { name: 'Create avatar' });
    await user.click(screen.getByRole('button', { name: 'START' }));
    expect(await screen.findByText('Please select an avatar appearance from the grid to start creating your avatar.')).toBeInTheDocument();
    expect(screen.getByText('Avatar selection is required. Please select an avatar from the list above.')).toBeInTheDocument();
  });

  it('puts a created avatar at the top and says how to go on', async () => {
    const user = userEvent.setup();
    const created = agent({ id: 300, name: 'Leo', updated: '2026-04-01T00:00:00.000Z' });
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], { 'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: created }) }),
    });
    await screen.findByText('Maya Helper');
    await user.click(screen.getByRole('button', { name: 'START' }));
    // The limits it will get are said before it is created (issue 26): none, as sent.
    expect(await within(screen.getByRole('region', { name: 'Create avatar' })).findByTestId('new-avatar-limits')).toHaveTextContent(
      'New avatars have no call limits: Daily Limit Per Session unlimited, Daily Limit Per IP unlimited, Demo duration unlimited; an idle call ends after 5 minutes.',
    );
    await user.click(await screen.findByRole('radio', { name: 'Leo' }));
    await user.click(screen.getByRole('button', { name: 'CREATE AVATAR' }));
    await waitFor(() => expect(v2Calls(fetchMock)).toHaveLength(1));
    expect(await multipartJson(v2Calls(fetchMock)[0]![1] as RequestInit)).toMatchObject({ dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 300 });
    const dialog = await screen.findByRole('dialog', { name: 'Avatar created' });
    expect(dialog).toHaveTextContent('select the avatar in the left panel and click EDIT');
    const cards = screen.getAllByTestId(/^avatar-card-/);
    expect(cards[0]).toHaveAttribute('data-testid', 'avatar-card-300');
    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(await screen.findByRole('button', { name: 'START' })).toBeInTheDocument();
    expect(location()).toBe('/avatars');
  });
});

describe('self-hosted config and image avatars', () => {
  it('shows a self-hosted config read-only and asks to transfer its hosting on save', async () => {
    const user = userEvent.setup();
    const selfHosted = agent({ avatarConfigURL: 'https://cdn.example.com/configs/maya.json', avatarJson: undefined });
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([selfHosted], {
        'GET /configs/maya.json': () => json({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', panel: { BgColor: '#000000' } }),
        'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: agent({ version: 4 }) }),
      }),
    });
    const panel = await openEditor(user);
    expect(await within(panel).findByText(/uses a self-hosted config file/)).toBeInTheDocument();
    expect(within(panel).getByRole('radio', { name: 'Leo' })).toBeDisabled();
    await user.click(within(panel).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Confirm Update' })).getByRole('button', { name: 'Update' }));
    const transfer = await screen.findByRole('dialog', { name: 'Transfer Configuration File Hosting' });
    await user.click(within(transfer).getByRole('button', { name: 'Yes' }));
    await screen.findByText('Updated Successfully');
    const sent = await multipartJson(v2Calls(fetchMock)[0]?.[1] as RequestInit);
    expect(sent.transferConfigHosting).toBe(true);
    expect(JSON.parse(String(sent.avatarJson))).toMatchObject({ panel: { BgColor: '#000000' } });
  });

  it("offers lower plans 'Higher Subscription Plan Required' and the upgrade request", async () => {
    const user = userEvent.setup();
    const { requests } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], { 'POST /api/account_upgrade': () => json({ status: 'OK' }) }),
    });
    await screen.findByText('Maya Helper');
    await user.click(screen.getByRole('button', { name: 'START' }));
    const panel = await screen.findByRole('region', { name: 'Create avatar' });
    await user.click(within(panel).getByRole('tab', { name: 'IMAGE AVATARS' }));
    await user.click(await within(panel).findByRole('button', { name: /Upload image avatar/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Higher Subscription Plan Required' });
    await user.click(within(dialog).getByRole('button', { name: 'Request upgrade to PRO' }));
    expect(await within(dialog).findByText(/Your upgrade request has been sent/)).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/account_upgrade')?.body).toEqual({ subType: 2, dhType: 2 });
  });

  it('lets PRO accounts send a face photo with the permission statement', async () => {
    const user = userEvent.setup();
    const { fetchMock } = renderApp({
      route: '/avatars',
      session: userSession,
      api: creatorApi([agent()], { 'POST /api/image_avatar_requests': () => json({ status: 'OK', request: { id: 1 } }) }, 2),
    });
    await screen.findByText('Maya Helper');
    await user.click(screen.getByRole('button', { name: 'START' }));
    const panel = await screen.findByRole('region', { name: 'Create avatar' });
    await user.click(within(panel).getByRole('tab', { name: 'IMAGE AVATARS' }));
    await user.click(await within(panel).findByRole('button', { name: /Upload image avatar/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Upload an image avatar' });
    expect(dialog).toHaveTextContent('Prefer e-mail?');
    // The configured contact address, never one made from the page's host.
    expect(dialog).toHaveTextContent('to avatars@studio.example.');
    await user.click(within(dialog).getByRole('button', { name: 'Send request' }));
    expect(await within(dialog).findByText('A face photo is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Please confirm that you have the permission of the person in the photo.')).toBeInTheDocument();
    await user.upload(within(dialog).getByLabelText('Face photo'), new File(['jpeg'], 'face.jpg', { type: 'image/jpeg' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Avatar Name' }), 'My Clone');
    await user.click(within(dialog).getByRole('checkbox'));
    await user.click(within(dialog).getByRole('button', { name: 'Send request' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Upload an image avatar' })).not.toBeInTheDocument());
    const call = fetchMock.mock.calls.find(([url]) => String(url).endsWith('/api/image_avatar_requests'));
    const form = (call?.[1] as RequestInit).body as FormData;
    expect(form.get('name')).toBe('My Clone');
    expect(form.get('permissionConfirmed')).toBe('true');
    expect((form.get('photo') as File).name).toBe('face.jpg');
  });
});
