import { expect, test } from '@playwright/test';
import { baseUrl } from './support/accounts';
import { createEchoAvatar, receivedBy, serveHostPage } from './support/embed';

// Issue 26, item 12: the embedded avatar took the focus as it connected, and the browser scrolled
// the host page to the iframe (1,600 px above it: scrollY 1500, the iframe focused). Nothing in
// the frame may take the focus until the visitor interacts with it.

function longHostPage(avatarUrl: string): string {
  return `<!doctype html><html><head><title>A long article</title></head><body style="margin:0">
<h1>Our story</h1>
<div id="spacer" style="height:1600px;background:linear-gradient(#fff,#eef)">Read on…</div>
<iframe id="avatar" src="${avatarUrl}" allow="microphone; autoplay" style="width:400px;height:600px;border:0"></iframe>
<script>
  window.received = [];
  window.frameLoaded = false;
  document.getElementById('avatar').addEventListener('load', () => { window.frameLoaded = true; });
  window.addEventListener('message', (event) => { if (event.data && event.data.eventName) window.received.push(event.data); });
</script></body></html>`;
}

test('the embedded avatar connects and greets without taking the focus or scrolling the host page', async ({ page }) => {
  const { id } = await createEchoAvatar('embed-focus');
  // autoConnect (the default), the chat input shown: what a plain snippet gets.
  const site = await serveHostPage(longHostPage(`${baseUrl()}/avatar/${id}?speakerOffByDefault=true&registerTrlEvents=auth-success,trl-chat`));
  const hostState = () =>
    page.evaluate(() => ({ scrollY: Math.round(window.scrollY), active: document.activeElement?.tagName ?? null, hasFocus: document.hasFocus() }));
  try {
    await page.goto(site.url);
    await expect.poll(() => page.evaluate(() => (window as unknown as { frameLoaded: boolean }).frameLoaded)).toBe(true);
    expect(await hostState()).toMatchObject({ scrollY: 0, active: 'BODY' });

    // Connected and greeted: the page's chat input exists and is enabled, and still nothing moved.
    await expect.poll(async () => (await receivedBy(page)).some((m) => m.eventName === 'trl-chat' && m.eventParams?.message === 'Welcome to the shop.'), { timeout: 30_000 }).toBe(true);
    const input = page.frameLocator('#avatar').getByRole('textbox', { name: 'Message' });
    await expect(input).toBeEnabled();
    const after = await hostState();
    expect(after, JSON.stringify(after)).toMatchObject({ scrollY: 0, active: 'BODY' });
    expect(await input.evaluate((el) => document.activeElement === el)).toBe(false);

    // Once the visitor is in the frame, the frame behaves as usual: typing goes to the input.
    await input.click();
    await input.fill('Hello');
    await expect(input).toHaveValue('Hello');
  } finally {
    await site.close();
  }
});
