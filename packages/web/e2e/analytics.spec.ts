import { expect, test } from '@playwright/test';
import { apiLogin, callApi } from './support/accounts';
import { expectAccessible } from './support/axe';
import { createEchoAvatar } from './support/embed';
import { signIn } from './support/pages';
import { WIDTHS, shot, useWidth } from './support/screenshots';

// Analytics (issue 30, ADR 099), on the built server and its embedded worker: a visitor talks
// with an echo avatar on /avatar/{id} and hangs up; the page reports its own figures; the owner
// sees them above the transcript and in the account's analytics.
test("a conversation's page figures reach its transcript and the account's analytics", async ({ page, context }) => {
  test.setTimeout(120_000);
  const { id, account } = await createEchoAvatar('analytics', { name: 'Echo Ada', wakeUpMessage: 'Hello! Type something and I will say it back.' });
  const session = await apiLogin(account.email, account.password);

  const avatarPage = await context.newPage();
  await avatarPage.goto(`/avatar/${id}?chatOpen=true`);
  const log = avatarPage.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Hello! Type something and I will say it back.', { timeout: 20_000 });
  await expect.poll(() => avatarPage.evaluate(() => (window as unknown as { __personaAvatar?: { frames: number } }).__personaAvatar?.frames ?? 0), { timeout: 20_000 }).toBeGreaterThan(0);
  await avatarPage.getByRole('textbox', { name: 'Message' }).fill('When does the ferry leave?');
  await avatarPage.getByRole('button', { name: 'Send' }).click();
  await expect(log.getByText('When does the ferry leave?')).toHaveCount(2, { timeout: 15_000 });
  await expect
    .poll(async () => ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { turns: number }[] | undefined)?.[0]?.turns ?? 0, { timeout: 30_000 })
    .toBe(1);
  const figuresSent = avatarPage.waitForRequest((r) => r.url().endsWith('/api/live/sessions/figures') && r.method() === 'POST');
  await avatarPage.getByRole('button', { name: 'End conversation' }).click();
  const sent = JSON.parse((await figuresSent).postData() ?? '{}') as { firstFrameMs: number | null };
  expect(sent.firstFrameMs).toBeGreaterThan(0);
  await expect
    .poll(async () => ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { outcome: string }[])[0]?.outcome, { timeout: 15_000 })
    .toBe('hang-up');
  const conversationId = ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { id: string }[])[0]!.id;
  await expect
    .poll(async () => ((await callApi(`/api/get_conversation?id=${conversationId}`, undefined, session)).json.conversation as { pageFigures: { firstFrameMs: number } | null }).pageFigures?.firstFrameMs ?? null, { timeout: 15_000 })
    .toBe(sent.firstFrameMs);
  await avatarPage.close();

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.goto(`/react/conversations/${conversationId}`);
  const summary = page.getByRole('region', { name: 'Summary' });
  await expect(summary).toContainText('First frame');
  await expect(summary).toContainText(/\d+ ms|\d\.\d\d s/);
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'conversation-page-figures');
  }
  await useWidth(page, 1280);

  await page.goto(`/react/conversations?avatarId=${id}`);
  await page.getByRole('link', { name: 'Analytics' }).click();
  await expect(page).toHaveURL(new RegExp(`/react/analytics\\?avatarId=${id}$`));
  await expect(page.getByRole('region', { name: 'Sessions', exact: true })).toContainText('1');
  await expect(page.getByRole('list', { name: 'Outcomes' })).toContainText('Hung up');
  await expect(page.getByRole('region', { name: "Measured by the visitors' pages" })).toContainText('1 session');
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'analytics');
    await expectAccessible(page, `analytics-${width}`);
  }

  // The same page with a busy month's figures (the answer stubbed in the browser): the charts drawn, for a visual review.
  const day = (i: number) => new Date(Date.now() - (29 - i) * 86_400_000).toISOString().slice(0, 10);
  const p = (p50: number, p95: number) => ({ count: 480, p50, p95 });
  const busy = {
    from: new Date(Date.now() - 30 * 86_400_000).toISOString(),
    to: new Date().toISOString(),
    utcOffset: 0,
    sessions: 1240,
    minutes: 5210.5,
    days: Array.from({ length: 30 }, (_, i) => ({ day: day(i), sessions: 25 + ((i * 7) % 30), minutes: 110 + ((i * 13) % 90) })),
    turns: { mean: 6.3, p50: 5, p95: 17, max: 40 },
    durationSeconds: { p50: 214, p90: 610, p95: 802, max: 3600 },
    outcomes: [
      { outcome: 'hang-up', count: 980 },
      { outcome: 'idle', count: 180 },
      { outcome: 'limit', count: 30 },
      { outcome: 'error', count: 50 },
    ],
    errorCodes: [
      { code: 'worker-lost', count: 31 },
      { code: 'llm-error', count: 19 },
    ],
    providerErrors: [
      { provider: 'elevenlabs', phase: 'speech', count: 42, sessions: 17 },
      { provider: 'openai-compatible', phase: 'reply', count: 9, sessions: 8 },
    ],
    voice: { endToEnd: p(840, 1610), endOfSpeech: p(310, 560), stt: p(140, 290), firstToken: p(330, 820), firstAudio: p(120, 260) },
    page: { firstFrame: p(980, 2400), avOffset: p(22, 58), droppedFrames: p(2, 31) },
    questions: {
      available: true,
      sampled: 500,
      groups: [
        { text: 'What are your opening hours?', count: 61, sessions: 48, variants: ['when do you open', 'Are you open on Sundays?', 'What time do you close today?'] },
        { text: 'How do I return an item I bought online?', count: 37, sessions: 33, variants: ['can i get a refund', 'I want my money back for order 4417'] },
        { text: 'Where can I park near the harbour office?', count: 22, sessions: 21, variants: ['is there parking'] },
        { text: 'Do you ship to Switzerland?', count: 9, sessions: 9, variants: [] },
      ],
    },
  };
  await page.route('**/api/get_analytics?*', (route) => route.fulfill({ json: { status: 'OK', analytics: busy } }));
  await page.reload();
  await expect(page.getByRole('img', { name: 'Bar chart of latency p50 and p95 by stage' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Frequent questions' })).toContainText('Asked 61 times in 48 sessions');
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'analytics-busy');
    await expectAccessible(page, `analytics-busy-${width}`);
  }
});
