import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { apiLogin, baseUrl, callApi, createVerifiedAccount } from './support/accounts';
import { WIDTHS } from './support/screenshots';

// Issue 26, item 14: a protected avatar (an encryption key: visitors need a token) opened without
// a token offered Connect, which could only fail. It must say why as it loads, offer no Connect,
// and tell a host page auth-fail (InvalidToken, failReason 13) — also a host that registers late.

function hostPage(avatarUrl: string): string {
  return `<!doctype html><html><head><title>Customer site</title></head><body>
<iframe id="avatar" src="${avatarUrl}" allow="microphone; autoplay" style="width:640px;height:480px;border:0"></iframe>
<script>
  window.received = [];
  const frame = document.getElementById('avatar');
  const avatarOrigin = new URL(frame.src).origin;
  window.addEventListener('message', (event) => {
    if (event.origin === avatarOrigin) window.received.push(event.data);
  });
  // Registered late, well after the page knew it cannot connect.
  frame.addEventListener('load', () => setTimeout(() => {
    frame.contentWindow.postMessage({ eventName: 'registerTrlEvents', eventParams: { events: ['auth-fail', 'auth-success'] } }, avatarOrigin);
  }, 1500));
</script></body></html>`;
}

test('a protected avatar opened without a token says so, offers no Connect, and the host page gets auth-fail', async ({ page }) => {
  test.setTimeout(90_000);
  const account = await createVerifiedAccount('protected');
  const session = await apiLogin(account.email, account.password);
  const key = await callApi('/api/add_encryption_key', { name: 'Website' }, session);
  expect(key.status, JSON.stringify(key.json)).toBe(200);
  const keyId = (key.json.encKey as { id: number }).id;
  const created = await callApi(
    '/api/add_avatar',
    {
      name: 'Vault Maya',
      nlpEngine: 0,
      dhType: 2,
      setupMode: 0,
      wakeUpMessage: 'Hello!',
      dailyLimitPerSession: -1,
      dailyLimitPerIP: -1,
      dailyLimits: { Demo: -1 },
      idleTimeout: 300,
      encKeyId: keyId,
      avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
    },
    session,
  );
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = (created.json.agent as { id: number }).id;

  // Opened directly, with autoConnect (the default) and without: the refusal, no Connect.
  for (const search of ['', '?autoConnect=false']) {
    await page.goto(`/avatar/${id}${search}`);
    await expect(page.getByRole('alert')).toContainText('This avatar is protected. The page that shows it must provide an access token.');
    await expect(page.getByRole('heading', { name: 'Vault Maya' })).toBeVisible();
    await expect(page.getByRole('button', { name: /^Connect/ })).toHaveCount(0);
    // Nothing to type into: on the connect screen the input waits with the call's controls (ADR 090), disabled.
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeHidden();
    await expect(page.getByRole('textbox', { name: 'Message', includeHidden: true })).toBeDisabled();
  }
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    // A silent avatar is redrawn a few times a second (reduced motion): let it draw at the new size.
    await page.waitForTimeout(500);
    await page.screenshot({ path: test.info().outputPath(`protected-avatar-${width}.png`), fullPage: true });
  }

  // Embedded by a site of another origin: auth-fail reaches it, with the spec's InvalidToken.
  await page.setViewportSize({ width: 1280, height: 800 });
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage(`${baseUrl()}/avatar/${id}`)));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  try {
    await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
    const received = () => page.evaluate(() => (window as unknown as { received: { eventName: string; eventParams?: Record<string, unknown> }[] }).received);
    await expect.poll(async () => (await received()).find((m) => m.eventName === 'auth-fail')?.eventParams, { timeout: 15_000 }).toEqual({
      code: 'token-required',
      message: 'This avatar is protected. The page that shows it must provide an access token.',
      failReason: 13,
    });
    await expect(page.frameLocator('#avatar').getByRole('button', { name: /^Connect/ })).toHaveCount(0);
    expect((await received()).filter((m) => m.eventName === 'auth-success')).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => site.close(() => resolve()));
  }
});
