import { expect, test } from '@playwright/test';
import { apiLogin, callApi } from './support/accounts';
import { expectAccessible } from './support/axe';
import { createEchoAvatar } from './support/embed';
import { signIn } from './support/pages';
import { WIDTHS, shot, useWidth } from './support/screenshots';

// Conversations (issue 30, ADR 092), on the built server and its embedded worker: a visitor chats
// with an echo avatar on /avatar/{id} and hangs up; its owner finds the conversation from the
// avatar's card, finds it by what was said (ADR 098), opens its transcript and reads it.
test('a conversation held on the avatar page appears in the list with its transcript', async ({ page, context }) => {
  test.setTimeout(120_000);
  const { id, account } = await createEchoAvatar('convo', { name: 'Echo Ella', wakeUpMessage: 'Hello! Type something and I will say it back.' });
  const session = await apiLogin(account.email, account.password);

  // The visitor's side: the avatar page, one typed line and its echo, then hang up.
  const avatarPage = await context.newPage();
  await avatarPage.goto(`/avatar/${id}?chatOpen=true`);
  const log = avatarPage.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Hello! Type something and I will say it back.', { timeout: 20_000 });
  await avatarPage.getByRole('textbox', { name: 'Message' }).fill('Where is the harbour office?');
  await avatarPage.getByRole('button', { name: 'Send' }).click();
  await expect(log.getByText('Where is the harbour office?')).toHaveCount(2, { timeout: 15_000 });
  // The worker reports the history once a turn has been said (its voice synthesised): stored before the hang-up ends the row.
  await expect
    .poll(async () => ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { turns: number }[] | undefined)?.[0]?.turns ?? 0, { timeout: 30_000 })
    .toBe(1);
  await avatarPage.getByRole('button', { name: 'End conversation' }).click();
  await expect
    .poll(async () => ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { outcome: string }[])[0]?.outcome, { timeout: 15_000 })
    .toBe('hang-up');
  await avatarPage.close();

  // The owner's side: from the avatar's card to its conversations, then the transcript.
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const card = page.getByTestId(`avatar-card-${id}`);
  const link = card.getByRole('link', { name: 'Conversations' });
  await expect(link.or(card.getByRole('button', { name: /^Expand / })).first()).toBeVisible();
  if (!(await link.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  // The card re-renders as it expands (a click on the link it replaces goes nowhere): click until it navigates.
  await expect(async () => {
    await link.click();
    await expect(page).toHaveURL(new RegExp(`/react/conversations\\?avatarId=${id}$`), { timeout: 2000 });
  }).toPass({ timeout: 15_000 });
  const table = page.getByRole('table', { name: 'Conversations' });
  await expect(table).toContainText('Echo Ella');
  await expect(table).toContainText('Hung up');
  await expect(page.getByRole('combobox', { name: 'Avatar' })).toContainText('Echo Ella');
  // The search (ADR 098): words of the conversation find it, the matching turn under its row.
  const search = page.getByRole('searchbox', { name: 'Search what was said' });
  await search.fill('xylophone');
  await search.press('Enter');
  await expect(page.getByText('No conversation matches these filters')).toBeVisible();
  await search.fill('harbour offices');
  await search.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/react/conversations\\?avatarId=${id}&q=harbour\\+offices$`));
  const matched = page.getByLabel(/^What matched in the conversation of/);
  await expect(matched).toContainText('Where is the harbour office?');
  await expect(matched.locator('mark')).toHaveText(['harbour', 'office']);
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'conversations');
    await expectAccessible(page, `conversations-${width}`);
  }
  await useWidth(page, 1280);

  await table.getByRole('link', { name: /^Transcript of the conversation/ }).click();
  await expect(page.getByRole('heading', { name: 'Conversation with Echo Ella' })).toBeVisible();
  const transcript = page.getByRole('list', { name: 'Transcript' });
  await expect(transcript).toContainText('Hello! Type something and I will say it back.');
  // Opened from the search: the turns holding its words are marked.
  await expect(page.getByText('2 turns hold “harbour offices”: marked below.')).toBeVisible();
  await expect(transcript.locator('li[aria-current="true"]')).toHaveCount(2);
  await expect(transcript.locator('mark').first()).toHaveText('harbour');
  const facts = page.getByRole('region', { name: 'Conversation facts' });
  await expect(facts).toContainText('Avatar page');
  await expect(facts).toContainText(/v-[0-9a-f]{10}/);
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'conversation-transcript');
    await expectAccessible(page, `conversation-transcript-${width}`);
  }

  // The owner deletes it, after a confirmation: the list is empty again.
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/react\/conversations$/);
  await expect(page.getByText('No conversations yet')).toBeVisible();
});
