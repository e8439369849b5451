import { expect, test } from '@playwright/test';
import { apiLogin, baseUrl, callApi, createVerifiedAccount } from './support/accounts';
import { expectAccessible } from './support/axe';
import { clickForNewTab, signIn } from './support/pages';
import { WIDTHS } from './support/screenshots';

// The live avatar, end to end on the built server and its embedded worker: from the avatar list,
// Connect opens /avatar/{id} in a new tab; the visitor chats with an echo avatar by text.
test('Connect → chat with an echo avatar on /avatar/{id}: the answer appears in the conversation log', async ({ page, context }) => {
  // A story across the portal, the avatar page and the worker: more than the default 45 s on a busy machine.
  test.setTimeout(120_000);
  const account = await createVerifiedAccount('live');
  const session = await apiLogin(account.email, account.password);
  const avatar = {
      name: 'Echo Ella',
      nlpEngine: 0,
      dhType: 2,
      setupMode: 0,
      wakeUpMessage: 'Hello! Type something and I will say it back.',
      dailyLimitPerSession: -1,
      dailyLimitPerIP: -1,
      dailyLimits: { Demo: -1 },
      idleTimeout: 300,
      avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
  };
  // The avatar creator's save: multipart with the avatar as its "json" field.
  const appKey = ((await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string }).appKey;
  const form = new FormData();
  form.set('json', JSON.stringify(avatar));
  const response = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${appKey}:${session}` }, body: form });
  const created = (await response.json()) as { agent?: { id: number } };
  expect(response.status, JSON.stringify(created)).toBe(200);
  const id = created.agent!.id;

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const card = page.getByTestId(`avatar-card-${id}`);
  await expect(card).toBeVisible();
  const connect = card.getByRole('link', { name: 'Connect' });
  // The card as drawn (expanded with Connect, or collapsed with Expand) before choosing.
  await expect(card.getByRole('link', { name: 'Connect' }).or(card.getByRole('button', { name: /^Expand / })).first()).toBeVisible();
  if (!(await connect.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  const avatarPage = await clickForNewTab(context, connect);
  await avatarPage.waitForLoadState();
  expect(new URL(avatarPage.url()).pathname).toBe(`/avatar/${id}`);

  // The conversation is a panel over the stage, closed at first (ADR 090): the visitor opens it.
  await avatarPage.getByRole('button', { name: 'Chat', exact: true }).click();
  const log = avatarPage.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Hello! Type something and I will say it back.', { timeout: 20_000 });
  // The test hook meters the audio the page really plays from here on. The stage (and its hook)
  // loads in its own chunk, alongside the connection: the greeting can arrive before it exists.
  await expect
    .poll(async () => avatarPage.evaluate(() => {
      const hook = (window as unknown as { __personaAvatar?: { probe?: () => void } }).__personaAvatar;
      if (!hook?.probe) return false;
      hook.probe();
      return true;
    }), { timeout: 20_000 })
    .toBe(true);
  await avatarPage.getByRole('textbox', { name: 'Message' }).fill('The tide is high at noon');
  await avatarPage.getByRole('button', { name: 'Send' }).click();
  // The visitor's line and the echo: the text twice in the log.
  await expect(log.getByText('The tide is high at noon')).toHaveCount(2, { timeout: 15_000 });
  // And it was said aloud: the worker's offline voice (no TTS keys) played in the page, and the
  // face's mouth opened with it (the page's test hook records both on the audio clock).
  await expect
    .poll(async () => avatarPage.evaluate(() => {
      const probe = (window as unknown as { __personaAvatar?: { history: { open: number; utt: number | null }[]; levels: { rms: number }[] } }).__personaAvatar;
      if (!probe) return 'no probe';
      const loudest = Math.max(0, ...probe.levels.map((l) => l.rms));
      const widest = Math.max(0, ...probe.history.filter((h) => h.utt !== null).map((h) => h.open));
      return loudest > 0.01 && widest > 0.1 ? 'spoke' : `loudest ${loudest} of ${probe.levels.length}, widest mouth ${widest}`;
    }), { timeout: 20_000 })
    .toBe('spoke');

  // The owner sees the live session on the card (My Online Users).
  const users = await callApi('/api/list_avatar_users', { agentId: id, mode: 'get' }, session);
  expect((users.json.onlineUsers as unknown[]).length).toBe(1);

  for (const width of WIDTHS) {
    await avatarPage.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    await avatarPage.screenshot({ path: test.info().outputPath(`live-chat-${width}.png`), fullPage: true });
    // The live avatar page in a conversation, checked with axe-core (ADR 050).
    await expectAccessible(avatarPage, `live-avatar-${width}`);
  }
  await avatarPage.getByRole('button', { name: 'End conversation' }).click();
  await expect.poll(async () => ((await callApi('/api/list_avatar_users', { agentId: id, mode: 'get' }, session)).json.onlineUsers as unknown[]).length, { timeout: 15_000 }).toBe(0);
  await avatarPage.close();

  // The owner's chat-only widget of the same avatar (navbar and footer hidden), in a conversation.
  await page.goto(`/react/chatWidget/${id}`);
  const widgetLog = page.getByRole('log', { name: 'Conversation' });
  await expect(widgetLog).toContainText('Hello! Type something and I will say it back.', { timeout: 20_000 });
  await page.getByRole('textbox', { name: 'Message' }).fill('Low tide at six');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(widgetLog.getByText('Low tide at six')).toHaveCount(2, { timeout: 15_000 });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    // A messenger: the conversation fills the frame and the input stays at its bottom (it used to
    // follow the last message, half-way up an empty page).
    const height = width > 760 ? 800 : 844;
    const input = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!;
    expect(input.y + input.height).toBeGreaterThan(height - 72);
    expect((await page.getByRole('log', { name: 'Conversation' }).boundingBox())!.height).toBeGreaterThan(height / 2);
    await page.screenshot({ path: test.info().outputPath(`chat-widget-${width}.png`), fullPage: true });
    await expectAccessible(page, `chat-widget-${width}`);
  }
});
