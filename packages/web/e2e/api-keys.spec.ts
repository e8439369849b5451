import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { apiLogin, baseUrl, callApi } from './support/accounts';
import { expectAccessible } from './support/axe';
import { createEchoAvatar } from './support/embed';
import { signIn } from './support/pages';
import { WIDTHS, shot, useWidth } from './support/screenshots';

// API keys and export (issue 30, ADR 094), on the built server: the owner makes a key on the API
// keys page (from Account), a "server" calls the API with it — only within its scope —, the
// conversations page exports the list as CSV, and the key revoked in the portal is refused.
test('an API key made in the portal reads conversations from a server, only in its scope, until revoked; the list exports as CSV', async ({ page }) => {
  test.setTimeout(120_000);
  const { id, account } = await createEchoAvatar('keys', { name: 'Key Kim' });
  const session = await apiLogin(account.email, account.password);
  // An ended conversation of the avatar (admitted and hung up, as a page would).
  const started = await callApi('/api/live/sessions', { avatarId: id, textOnly: true });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  const sessionId = started.json.sessionId as string;
  expect((await callApi('/api/live/sessions/end', { sessionId, resumeToken: started.json.resumeToken })).status).toBe(200);

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.goto('/react/account');
  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page).toHaveURL(/\/react\/apiKeys$/);
  await expect(page.getByText('No API keys yet')).toBeVisible();

  await page.getByRole('button', { name: 'New API key' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('Reporting server');
  await dialog.getByRole('checkbox', { name: /conversations:read/ }).check();
  await dialog.getByRole('button', { name: 'Create' }).click();
  const secretBox = dialog.getByLabel('API key');
  await expect(secretBox).toContainText('ps_live_');
  const secret = (await secretBox.textContent())!.trim();
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'api-key-created');
    await expectAccessible(page, `api-key-created-${width}`);
  }
  await useWidth(page, 1280);
  await dialog.getByRole('button', { name: 'Done' }).click();
  const table = page.getByRole('table', { name: 'API keys' });
  await expect(table).toContainText('Reporting server');
  await expect(table).toContainText('conversations:read');
  await expect(page.locator('body')).not.toContainText(secret);
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'api-keys');
    await expectAccessible(page, `api-keys-${width}`);
  }
  await useWidth(page, 1280);

  // The customer's server: the key alone, no app key, no session.
  const server = (path: string) => fetch(`${baseUrl()}${path}`, { headers: { authorization: `Bearer ${secret}` } });
  const listed = await server(`/api/list_conversation?avatarId=${id}`);
  expect(listed.status).toBe(200);
  expect(((await listed.json()) as { conversations: { id: string }[] }).conversations.map((c) => c.id)).toEqual([sessionId]);
  expect((await server('/api/list_avatar')).status).toBe(403);
  expect((await server('/api/list_api_key')).status).toBe(403);
  const exported = await server(`/api/export_conversation?format=json&id=${sessionId}`);
  expect(exported.headers.get('content-disposition')).toBe(`attachment; filename="conversation-${sessionId}.json"`);
  expect(((await exported.json()) as { conversations: { id: string }[] }).conversations[0]!.id).toBe(sessionId);

  // The portal's export of the list, with its filter: a CSV file the browser saves.
  await page.goto(`/react/conversations?avatarId=${id}`);
  await expect(page.getByRole('table', { name: 'Conversations' })).toContainText('Key Kim');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export these conversations as CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^conversations-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toBe('\uFEFFsession_id,avatar_id,avatar_name,started_at,ended_at,outcome,channel,visitor,turn_at,speaker,text,interrupted,end_of_speech_ms,stt_ms,first_token_ms,first_audio_ms,voice_to_voice_ms,heard_ms,full_chars,functions,passages,errors,corrections');
  expect(csv).toContain(sessionId);

  // Revoked in the portal: the server is refused from then on.
  await page.goto('/react/apiKeys');
  await page.getByRole('button', { name: 'Revoke Reporting server' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('No API keys yet')).toBeVisible();
  expect((await server(`/api/list_conversation?avatarId=${id}`)).status).toBe(401);
  // The portal session is untouched.
  expect((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).status).toBe(200);
});
