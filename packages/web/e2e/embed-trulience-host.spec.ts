import { expect, test } from '@playwright/test';
import { baseUrl } from './support/accounts';
import { createEchoAvatar, receivedBy, serveHostPage } from './support/embed';

// Issue 26, item 8: a host page written for Trulience's iframe app. It never registers by
// postMessage: the events it wants are in the iframe's URL (registerTrlEvents=…), with the app's
// other parameters (connect, showFullscreenAvatar…). It only listens to window messages, calls
// methods with targetOrigin '*', and still sends the deprecated {command, message} messages.

/** Laid out as Trulience's public iframe example: a Call button sets the frame's src. */
function trulienceHostPage(avatarUrl: string): string {
  return `<!doctype html><html><head><title>Trulience-style site</title></head><body>
<div id="root" style="width:640px;height:420px"><iframe id="iframeId" frameborder="0" width="100%" height="100%" allow="microphone; fullscreen; autoplay" allowfullscreen></iframe></div>
<button id="connect" onclick="startCall()">Call</button>
<script>
  var src = ${JSON.stringify(avatarUrl)} + '?connect=true&showFullscreenAvatar=true&speakerOffByDefault=true&registerTrlEvents=auth-success,auth-fail,mic-update,mic-access,speaker-update,media-connected,trl-chat';
  var iframe = document.getElementById('iframeId');
  window.received = [];
  window.addEventListener('message', function (event) {
    if (event.data !== null && event.data !== undefined && event.data.eventName) window.received.push(event.data);
  });
  function startCall() {
    iframe.src = src;
    document.getElementById('connect').disabled = true;
  }
  window.sendText = function (text) {
    iframe.contentWindow.postMessage({ eventName: 'trl-method-call', eventParams: { method: 'sendMessage', args: [text], callId: 'msg123' } }, '*');
  };
  window.sendCommand = function (command, message) {
    iframe.contentWindow.postMessage({ command: command, message: message }, '*');
  };
</script></body></html>`;
}

test('a host page written for Trulience gets its URL-registered events and drives the avatar', async ({ page }) => {
  const { id } = await createEchoAvatar('embed-trulience');
  const site = await serveHostPage(trulienceHostPage(`${baseUrl()}/avatar/${id}`));
  try {
    await page.goto(site.url);
    await page.getByRole('button', { name: 'Call' }).click();
    const chats = async () => (await receivedBy(page)).filter((m) => m.eventName === 'trl-chat').map((m) => m.eventParams?.message);

    // connect=true: the conversation starts; the host hears of it and of the greeting.
    await expect.poll(async () => (await receivedBy(page)).some((m) => m.eventName === 'auth-success'), { timeout: 30_000 }).toBe(true);
    await expect.poll(chats, { timeout: 20_000 }).toContain('Welcome to the shop.');
    expect((await receivedBy(page)).some((m) => m.eventName === 'media-connected')).toBe(true);

    // showFullscreenAvatar: only the avatar, no chat input nor buttons.
    const frame = page.frameLocator('#iframeId');
    await expect(frame.locator('.ps-avatar')).toHaveAttribute('data-connection', 'connected');
    await expect(frame.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    await expect(frame.getByRole('button', { name: /microphone|Mute the avatar|Unmute the avatar|End conversation|Full screen/ })).toHaveCount(0);

    // A method call (targetOrigin '*') is answered with its callId, and the echo is a chat event.
    await page.evaluate(() => (window as unknown as { sendText: (t: string) => void }).sendText('Do you ship abroad?'));
    await expect
      .poll(async () => (await receivedBy(page)).find((m) => m.eventName === 'trl-method-response' && m.eventParams?.callId === 'msg123')?.eventParams?.status, { timeout: 15_000 })
      .toBe('success');
    await expect.poll(chats, { timeout: 15_000 }).toContain('Do you ship abroad?');

    // The deprecated messages: chat, speaker, end of the call.
    const command = (name: string, message?: unknown) => page.evaluate(([n, m]) => (window as unknown as { sendCommand: (c: unknown, m: unknown) => void }).sendCommand(n, m), [name, message] as const);
    await command('trl-chat', 'And to Norway?');
    await expect.poll(chats, { timeout: 15_000 }).toContain('And to Norway?');
    await command('trl-set-speaker-status', true);
    await expect.poll(async () => (await receivedBy(page)).find((m) => m.eventName === 'speaker-update')?.eventParams, { timeout: 10_000 }).toEqual({ enabled: true });
    await command('end-call');
    await expect(frame.locator('.ps-avatar')).toHaveAttribute('data-connection', 'ended', { timeout: 10_000 });

    // Only what the URL registered reached the host (and the answer to its call).
    const names = new Set((await receivedBy(page)).map((m) => m.eventName));
    for (const name of names) expect(['auth-success', 'auth-fail', 'mic-update', 'mic-access', 'speaker-update', 'media-connected', 'trl-chat', 'trl-method-response']).toContain(name);
  } finally {
    await site.close();
  }
});
