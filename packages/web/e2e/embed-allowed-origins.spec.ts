import { expect, test } from '@playwright/test';
import { LiveCode, LiveMessages } from '@persona/contract';
import { baseUrl } from './support/accounts';
import { createEchoAvatar, receivedBy, serveHostPage } from './support/embed';
import { openEditor, signIn } from './support/pages';

// Issue 26, item 13: with allowed origins set, the editor's own Live Preview was refused (the
// portal's origin was not in frame-ancestors), and a site not on the list saw the browser's
// broken-frame icon, with no auth-fail, instead of the refusal the docs promise.

test('with allowed origins set, the editor’s Live Preview still shows the avatar', async ({ page }) => {
  const { id, account } = await createEchoAvatar('embed-preview', { allowedOrigins: ['https://shop.example.com'] });
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const card = page.getByTestId(`avatar-card-${id}`);
  await expect(card.getByRole('button', { name: /^(Edit|Expand .*)$/ }).first()).toBeVisible();
  const edit = card.getByRole('button', { name: 'Edit' });
  if (!(await edit.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  const panel = await openEditor(page, edit);
  await expect(panel.getByTitle('Avatar preview')).toBeVisible();
  // The avatar page itself is in the frame (a refused frame has no document of ours at all).
  const preview = page.frameLocator('iframe[title="Avatar preview"]');
  await expect(preview.getByRole('heading', { name: 'Shop Echo' })).toBeVisible({ timeout: 20_000 });
  await expect(preview.getByRole('button', { name: 'Connect' })).toBeVisible();
});

/** A site that is not on the list: one frame registers by URL (Trulience's way), the other by message (ours). */
function refusedHostPage(avatarUrl: string): string {
  return `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not allowed</title></head>
<body style="margin:0;font-family:sans-serif">
<iframe id="byUrl" src="${avatarUrl}?registerTrlEvents=auth-success,auth-fail,trl-chat" allow="microphone; autoplay" style="display:block;width:100%;height:560px;border:0"></iframe>
<iframe id="byMessage" src="${avatarUrl}" style="display:block;width:100%;height:200px;border:0"></iframe>
<script>
  window.received = [];
  const byUrl = document.getElementById('byUrl');
  const byMessage = document.getElementById('byMessage');
  window.addEventListener('message', (event) => {
    if (!event.data || !event.data.eventName) return;
    window.received.push({ frame: event.source === byUrl.contentWindow ? 'byUrl' : event.source === byMessage.contentWindow ? 'byMessage' : 'other', origin: event.origin, ...event.data });
  });
  byMessage.addEventListener('load', () => {
    byMessage.contentWindow.postMessage({ eventName: 'registerTrlEvents', eventParams: { events: ['auth-fail', 'trl-chat'] } }, '*');
    byMessage.contentWindow.postMessage({ eventName: 'trl-method-call', eventParams: { method: 'connect', args: [], callId: 'c1' } }, '*');
  });
</script></body></html>`;
}

test('a site not on the allowed origins sees the refusal and gets auth-fail', async ({ page }) => {
  const { id } = await createEchoAvatar('embed-refused', { allowedOrigins: ['https://shop.example.com'] });
  const site = await serveHostPage(refusedHostPage(`${baseUrl()}/avatar/${id}`));
  const failure = { eventName: 'auth-fail', eventParams: { code: LiveCode.originNotAllowed, message: LiveMessages[LiveCode.originNotAllowed], failReason: expect.any(Number) } };
  try {
    await page.goto(site.url);
    const byUrl = page.frameLocator('#byUrl');
    await expect(byUrl.getByRole('alert')).toContainText(LiveMessages[LiveCode.originNotAllowed]);
    await expect(byUrl.getByRole('alert')).toContainText(`If ${site.origin} is your website`);
    // Nothing to click in the refusal.
    await expect(byUrl.locator('button, a, input, textarea, select, [tabindex]')).toHaveCount(0);
    await expect(page.frameLocator('#byMessage').getByRole('alert')).toContainText(LiveMessages[LiveCode.originNotAllowed]);

    // Registered in the URL: told at once. Registered by message after the load: told then. Once each.
    await expect.poll(async () => (await receivedBy(page)).filter((m) => m.eventName === 'auth-fail').length, { timeout: 15_000 }).toBe(2);
    const received = (await receivedBy(page)) as (Record<string, unknown> & { frame: string })[];
    expect(received.find((m) => m.frame === 'byUrl' && m.eventName === 'auth-fail')).toMatchObject({ ...failure, origin: baseUrl() });
    expect(received.find((m) => m.frame === 'byMessage' && m.eventName === 'auth-fail')).toMatchObject(failure);
    // A method call is answered with the refusal.
    await expect
      .poll(async () => (await receivedBy(page)).find((m) => m.eventName === 'trl-method-response')?.eventParams, { timeout: 10_000 })
      .toMatchObject({ callId: 'c1', status: 'error', error: LiveMessages[LiveCode.originNotAllowed] });

    await page.screenshot({ path: test.info().outputPath('refusal-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(byUrl.getByRole('alert')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('refusal-390.png') });
  } finally {
    await site.close();
  }
});
