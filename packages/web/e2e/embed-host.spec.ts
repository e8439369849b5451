import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { baseUrl } from './support/accounts';
import { createEchoAvatar } from './support/embed';

// Issue 10: a site embeds the avatar with the snippet and drives it through the postMessage API,
// from another origin (another port), the way a host page written for Trulience's iframe API does:
// registerTrlEvents, trl-method-call → trl-method-response with its callId, trl-chat events.

/** The customer's site: one page with the embed snippet and a script written for the public API. */
function hostPage(avatarUrl: string): string {
  return `<!doctype html><html><head><title>Customer site</title></head><body>
<h1>Our shop</h1>
<iframe id="avatar" src="${avatarUrl}" allow="microphone; autoplay" style="width:640px;height:480px;border:0"></iframe>
<script>
  window.received = [];
  const frame = document.getElementById('avatar');
  const avatarOrigin = new URL(frame.src).origin;
  window.addEventListener('message', (event) => {
    if (event.origin !== avatarOrigin) return;
    window.received.push(event.data);
  });
  window.call = (method, args, callId) =>
    frame.contentWindow.postMessage({ eventName: 'trl-method-call', eventParams: { method, args, callId } }, avatarOrigin);
  frame.addEventListener('load', () => {
    frame.contentWindow.postMessage({ eventName: 'registerTrlEvents', eventParams: { events: ['auth-success', 'trl-chat', 'websocket-connect', 'state'] } }, avatarOrigin);
  });
</script></body></html>`;
}

test('a host page of another origin drives the embedded avatar through the postMessage API', async ({ page }) => {
  const agent = await createEchoAvatar('embed-host');

  // The site: localhost on its own port (the portal is 127.0.0.1 on another): a different origin.
  const avatarUrl = `${baseUrl()}/avatar/${agent.id}?autoConnect=true&speakerOffByDefault=true`;
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage(avatarUrl)));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
  try {
    await page.goto(siteUrl);
    const received = () => page.evaluate(() => (window as unknown as { received: { eventName: string; eventParams?: Record<string, unknown> }[] }).received);
    // The avatar connects and says its wake-up message: a trl-chat event reaches the host.
    await expect.poll(async () => (await received()).some((m) => m.eventName === 'trl-chat' && m.eventParams?.message === 'Welcome to the shop.'), { timeout: 30_000 }).toBe(true);

    // A method call with a callId is answered with the same callId…
    await page.evaluate(() => (window as unknown as { call: (m: string, a: unknown[], id: string) => void }).call('sendMessage', ['Do you ship abroad?'], 'call-1'));
    await expect
      .poll(async () => (await received()).find((m) => m.eventName === 'trl-method-response' && m.eventParams?.callId === 'call-1')?.eventParams?.status, { timeout: 15_000 })
      .toBe('success');
    // …and the avatar's answer (an echo) comes back as trl-chat.
    await expect
      .poll(async () => (await received()).filter((m) => m.eventName === 'trl-chat' && m.eventParams?.message === 'Do you ship abroad?').length, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(1);
    // An unknown method is an error answer, not silence.
    await page.evaluate(() => (window as unknown as { call: (m: string, a: unknown[], id: string) => void }).call('formatDisk', [], 'call-2'));
    await expect
      .poll(async () => (await received()).find((m) => m.eventName === 'trl-method-response' && m.eventParams?.callId === 'call-2')?.eventParams?.status, { timeout: 10_000 })
      .toBe('error');
    // Only registered events were posted to the host.
    const names = new Set((await received()).map((m) => m.eventName));
    for (const name of names) expect(['auth-success', 'trl-chat', 'websocket-connect', 'state', 'trl-method-response']).toContain(name);
    await page.screenshot({ path: test.info().outputPath('embed-host-1280.png') });
  } finally {
    await new Promise<void>((resolve) => site.close(() => resolve()));
  }
});
