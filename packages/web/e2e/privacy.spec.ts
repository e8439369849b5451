import { expect, test, type BrowserContext } from '@playwright/test';
import { apiLogin, callApi } from './support/accounts';
import { expectAccessible } from './support/axe';
import { createEchoAvatar } from './support/embed';
import { signIn } from './support/pages';
import { WIDTHS, shot, useWidth } from './support/screenshots';

/** A visitor's typed line to the echo avatar, echoed back, then the conversation ended (hang-up) and seen so in the list. */
async function holdEchoConversation(context: BrowserContext, id: number, session: string, line: string) {
  const avatarPage = await context.newPage();
  await avatarPage.goto(`/avatar/${id}?chatOpen=true`);
  const log = avatarPage.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Hello! Type something and I will say it back.', { timeout: 20_000 });
  await avatarPage.getByRole('textbox', { name: 'Message' }).fill(line);
  await avatarPage.getByRole('button', { name: 'Send' }).click();
  await expect(log.getByText(line)).toHaveCount(2, { timeout: 15_000 });
  await expect
    .poll(async () => ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { turns: number }[] | undefined)?.[0]?.turns ?? 0, { timeout: 30_000 })
    .toBe(1);
  await avatarPage.getByRole('button', { name: 'End conversation' }).click();
  await expect
    .poll(async () => ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { outcome: string }[])[0]?.outcome, { timeout: 15_000 })
    .toBe('hang-up');
  await avatarPage.close();
}

// Conversation privacy (issue 30, ADR 097), on the built server and its embedded worker: the owner
// turns on redaction on the Privacy page, a visitor types an e-mail address and a card number to an
// echo avatar, the transcript keeps only the placeholders; the owner then erases the visitor.
test('redaction set on the Privacy page keeps the secrets out of the transcript; the visitor is erased', async ({ page, context }) => {
  test.setTimeout(120_000);
  const { id, account } = await createEchoAvatar('privacy', { name: 'Echo Priya', wakeUpMessage: 'Hello! Type something and I will say it back.' });
  const session = await apiLogin(account.email, account.password);

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.goto(`/react/conversations?avatarId=${id}`);
  await page.getByRole('link', { name: 'Privacy' }).click();
  await expect(page).toHaveURL(new RegExp(`/react/privacy\\?avatarId=${id}$`));
  await page.getByRole('checkbox', { name: /E-mail addresses/ }).check();
  await page.getByRole('checkbox', { name: /Card numbers/ }).check();
  await page.getByRole('radio', { name: 'Delete the text after a number of days' }).check();
  await page.getByRole('spinbutton', { name: 'Days' }).fill('30');
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'privacy');
    await expectAccessible(page, `privacy-${width}`);
  }
  await useWidth(page, 1280);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Privacy settings saved.')).toBeVisible();
  const stored = (await callApi(`/api/get_avatar_privacy?avatarId=${id}`, undefined, session)).json.privacy as { redaction: { email: boolean; card: boolean }; retention: { mode: string; days: number } };
  expect(stored).toMatchObject({ redaction: { email: true, card: true }, retention: { mode: 'days', days: 30 } });

  // The visitor's side: one typed line with an address and a card number, echoed back, then hang up.
  await holdEchoConversation(context, id, session, 'Mail me at jane.doe@example.com, card 4111 1111 1111 1111');

  await page.goto(`/react/conversations?avatarId=${id}`);
  await page.getByRole('table', { name: 'Conversations' }).getByRole('link', { name: /^Transcript of the conversation/ }).click();
  const transcript = page.getByRole('list', { name: 'Transcript' });
  await expect(transcript.getByText('Mail me at [email], card [card]')).toHaveCount(2);
  await expect(transcript).not.toContainText('jane.doe@example.com');
  await expect(transcript).not.toContainText('4111');

  await page.getByRole('button', { name: 'Erase this visitor' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(/Erase everything of visitor v-[0-9a-f]{10}\?/);
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'privacy-erase-visitor');
  }
  await useWidth(page, 1280);
  await dialog.getByRole('button', { name: 'Erase' }).click();
  await expect(page).toHaveURL(/\/react\/conversations$/);
  await expect(page.getByText(/Visitor erased: 1 conversation and 0 memories removed\./)).toBeVisible();
  await expect(page.getByText('No conversations yet')).toBeVisible();
});

// A conversation stored before redaction was on: "Apply to stored conversations" redacts it.
test('redaction applied to a conversation stored before it was turned on', async ({ page, context }) => {
  test.setTimeout(120_000);
  const { id, account } = await createEchoAvatar('privacy-later', { name: 'Echo Remy', wakeUpMessage: 'Hello! Type something and I will say it back.' });
  const session = await apiLogin(account.email, account.password);

  await holdEchoConversation(context, id, session, 'My address is remy@example.org');

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.goto(`/react/privacy?avatarId=${id}`);
  const apply = page.getByRole('button', { name: 'Apply to stored conversations' });
  await expect(apply).toBeDisabled();
  await page.getByRole('checkbox', { name: /E-mail addresses/ }).check();
  await expect(page.getByText('Save the settings first: stored conversations are redacted with the saved ones.')).toBeVisible();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Privacy settings saved.')).toBeVisible();
  await apply.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Redact' }).click();
  await expect(page.getByText('Done: 1 of 1 stored conversation had text to redact.')).toBeVisible({ timeout: 20_000 });
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'privacy-redact-stored');
    await expectAccessible(page, `privacy-redact-stored-${width}`);
  }
  await useWidth(page, 1280);

  await page.goto(`/react/conversations?avatarId=${id}`);
  await page.getByRole('table', { name: 'Conversations' }).getByRole('link', { name: /^Transcript of the conversation/ }).click();
  const transcript = page.getByRole('list', { name: 'Transcript' });
  await expect(transcript.getByText('My address is [email]')).toHaveCount(2);
  await expect(transcript).not.toContainText('remy@example.org');
});
