import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/axe';
import { createEchoAvatar } from './support/embed';
import { signIn } from './support/pages';
import { WIDTHS, shot, useWidth } from './support/screenshots';

// Webhooks (issue 30, ADR 093), on the built server and its embedded worker: the owner adds an
// endpoint on the Webhooks page and copies its secret; the test's receiver — the example receiver
// of docs/webhooks.md, run as it is — gets the signed test event and, after a conversation held on
// the avatar page, `session.ended`; the delivery log shows both delivered.
interface WebhookEvent {
  id: string;
  type: string;
  version: number;
  data: Record<string, unknown>;
}
type Receiver = { createReceiver(opts: { secret: string; onEvent(e: WebhookEvent): void }): http.Server };
const receiverFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/webhooks/receiver.mjs');

test('a webhook receiver started by the test gets session.ended, signed', async ({ page, context }) => {
  test.setTimeout(120_000);
  const docs = (await import(pathToFileURL(receiverFile).href)) as Receiver;
  const { id, account } = await createEchoAvatar('hooks', { name: 'Hook Hana', wakeUpMessage: 'Hello! Type something and I will say it back.' });

  // The owner: Conversations → Webhooks → Add webhook (the URL is set once the receiver listens).
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.getByRole('navigation').getByRole('link', { name: 'Conversations' }).first().click();
  await page.getByRole('main').getByRole('link', { name: 'Webhooks' }).click();
  await expect(page).toHaveURL(/\/react\/webhooks$/);
  await expect(page.getByText('No webhooks yet')).toBeVisible();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const form = page.getByRole('dialog', { name: 'Add webhook' });
  await form.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/not-yet');
  await form.getByRole('combobox', { name: 'Avatar' }).click();
  await page.getByRole('option', { name: 'Hook Hana' }).click();
  await form.getByRole('checkbox', { name: /session\.started/ }).check();
  await form.getByRole('button', { name: 'Add webhook' }).click();
  const secretText = await page.getByLabel('Signing secret', { exact: true }).textContent();
  const secret = secretText?.trim() ?? '';
  expect(secret).toMatch(/^whsec_/);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByLabel('Signing secret', { exact: true })).toHaveCount(0);

  const events: WebhookEvent[] = [];
  const receiver = docs.createReceiver({ secret, onEvent: (e) => events.push(e) });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/persona`;
    await page.getByRole('button', { name: 'Edit http://127.0.0.1:9/not-yet' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit webhook' });
    await edit.getByLabel('Endpoint URL').fill(url);
    await edit.getByRole('button', { name: 'Save' }).click();
    const card = page.getByRole('listitem', { name: url });
    await expect(card).toBeVisible();

    // The test event, signed: the receiver (which refuses a bad signature with 400) takes it.
    await card.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => events.map((e) => e.type), { timeout: 15_000 }).toContain('ping');
    const log = page.getByRole('table', { name: 'Deliveries' });
    await expect(log.getByRole('row').filter({ hasText: 'ping' })).toContainText('Delivered', { timeout: 15_000 });

    // A visitor's conversation on the avatar page, then the hang-up.
    const avatarPage = await context.newPage();
    await avatarPage.goto(`/avatar/${id}?chatOpen=true`);
    const chat = avatarPage.getByRole('log', { name: 'Conversation' });
    await expect(chat).toContainText('Hello! Type something and I will say it back.', { timeout: 20_000 });
    await avatarPage.getByRole('textbox', { name: 'Message' }).fill('Is the ferry running today?');
    await avatarPage.getByRole('button', { name: 'Send' }).click();
    await expect(chat.getByText('Is the ferry running today?')).toHaveCount(2, { timeout: 15_000 });
    await avatarPage.getByRole('button', { name: 'End conversation' }).click();

    await expect.poll(() => events.map((e) => e.type), { timeout: 40_000 }).toContain('session.ended');
    const ended = events.find((e) => e.type === 'session.ended')!;
    expect(ended.version).toBe(1);
    expect(ended.data).toMatchObject({ avatarId: id, avatarName: 'Hook Hana', outcome: 'hang-up' });
    expect(events.map((e) => e.type)).toContain('session.started');
    await avatarPage.close();

    await page.reload();
    await page.getByRole('listitem', { name: url }).getByRole('button', { name: 'Deliveries' }).click();
    await expect(log.getByRole('row').filter({ hasText: 'session.ended' })).toContainText('Delivered', { timeout: 15_000 });
    for (const width of WIDTHS) {
      await useWidth(page, width);
      await shot(page, 'webhooks');
      await expectAccessible(page, `webhooks-${width}`);
    }
  } finally {
    receiver.close();
  }
});
