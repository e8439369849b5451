import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { apiLogin, baseUrl, createVerifiedAccount, type Account } from './accounts';

/** An Echo avatar (answers with what it is told, greets with `wakeUpMessage`), made through the API. */
export async function createEchoAvatar(prefix: string, extra: Record<string, unknown> = {}): Promise<{ id: number; account: Account }> {
  const account = await createVerifiedAccount(prefix);
  const session = await apiLogin(account.email, account.password);
  const appKey = ((await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string }).appKey;
  const form = new FormData();
  form.set(
    'json',
    JSON.stringify({
      name: 'Shop Echo',
      nlpEngine: 0,
      dhType: 2,
      setupMode: 0,
      wakeUpMessage: 'Welcome to the shop.',
      dailyLimitPerSession: -1,
      dailyLimitPerIP: -1,
      dailyLimits: { Demo: -1 },
      idleTimeout: 300,
      avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
      ...extra,
    }),
  );
  const saved = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${appKey}:${session}` }, body: form });
  if (saved.status !== 200) throw new Error(`add_avatar_v2 answered ${saved.status}: ${await saved.text()}`);
  const { agent } = (await saved.json()) as { agent: { id: number } };
  return { id: agent.id, account };
}

/**
 * A customer's site: one page, served from http://localhost:<port> while the portal is
 * http://127.0.0.1:<port> — another origin.
 */
export async function serveHostPage(html: string): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  return { url: `${origin}/`, origin, close: () => new Promise<void>((resolve) => site.close(() => resolve())) };
}

export interface HostMessage {
  eventName?: string;
  eventParams?: Record<string, unknown>;
}

/** What the host page's message listener recorded in `window.received`. */
export const receivedBy = (page: Page) => page.evaluate(() => (window as unknown as { received: HostMessage[] }).received);
