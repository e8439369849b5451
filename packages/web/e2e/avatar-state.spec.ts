import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { baseUrl } from './support/accounts';
import { createEchoAvatar } from './support/embed';

// The header's label, getState() and the `state` events must follow what is heard: speaking from
// the first sample of the greeting's voice to its last, listening after; the greeting's text shows
// with its voice, and the voice waits for the face.
// The avatar (an echo avatar, offline voice: no keys) is embedded by a host page of another
// origin that polls getState() every 100 ms; inside the frame every animation frame records the
// header's label and what the audio clock says is heard (the page's test hook).

/** Ten seconds of silence for the fake microphone (the mic is live, so "Listening…" can show). */
function silentWav(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'persona-silence-')), 'silence.wav');
  const samples = 16_000 * 10;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  fs.writeFileSync(file, Buffer.concat([header, Buffer.alloc(samples * 2)]));
  return file;
}

test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${silentWav()}`,
    ],
  },
});

const GREETING = 'Good morning and welcome to the harbour office. I can tell you about the ferries, the tides and the timetable for the islands.';

function hostPage(avatarUrl: string): string {
  return `<!doctype html><html><head><title>Harbour</title></head><body>
<iframe id="avatar" src="${avatarUrl}" allow="microphone; autoplay" style="width:640px;height:560px;border:0"></iframe>
<script>
  window.events = [];
  window.polls = [];
  const frame = document.getElementById('avatar');
  const avatarOrigin = new URL(frame.src).origin;
  const asked = new Map();
  let next = 1;
  window.addEventListener('message', (event) => {
    if (event.origin !== avatarOrigin) return;
    const { eventName, eventParams } = event.data || {};
    if (eventName === 'trl-method-response') {
      const sent = asked.get(eventParams.callId);
      if (sent !== undefined) window.polls.push({ sent, at: Date.now(), state: eventParams.result });
      asked.delete(eventParams.callId);
    } else {
      window.events.push({ at: Date.now(), eventName, eventParams });
    }
  });
  frame.addEventListener('load', () => {
    frame.contentWindow.postMessage({ eventName: 'registerTrlEvents', eventParams: { events: ['state', 'speaking-started', 'speaking-ended', 'trl-chat'] } }, avatarOrigin);
    setInterval(() => {
      const callId = next++;
      asked.set(callId, Date.now());
      frame.contentWindow.postMessage({ eventName: 'trl-method-call', eventParams: { method: 'getState', args: [], callId } }, avatarOrigin);
    }, 100);
  });
</script></body></html>`;
}

const speakingAtOf = (events: { at: number; state: string }[]) => events.find((e) => e.state === 'speaking')?.at ?? Infinity;

interface Sample {
  at: number;
  heard: number | null;
  label: string;
  text: boolean;
}

test('the header, getState() and the state events say speaking while the greeting is heard, listening after; its text shows with its voice', async ({ page }) => {
  test.setTimeout(120_000);
  const agent = await createEchoAvatar('avatar-state', { name: 'Harbour Maya', wakeUpMessage: GREETING });

  const avatarUrl = `${baseUrl()}/avatar/${agent.id}?autoConnect=true`;
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage(avatarUrl)));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
  try {
    // A cold load: the page, its player and its stage load while the greeting arrives — and the
    // stage's code comes late (a slow network), after the greeting's first audio: the voice waits
    // for the face, so the lips move from its first word.
    let stageServed = Infinity;
    await page.route(/\/assets\/stage-[^/]*\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      stageServed = Date.now();
      await route.continue();
    });
    await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
    const frame = page.frameLocator('#avatar');
    await expect(frame.locator('.ps-status')).toBeAttached();
    const avatarFrame = page.frames().find((f) => f.url().startsWith(avatarUrl.split('?')[0]!))!;
    // Every animation frame: the label and what the audio clock says is heard (the test hook).
    await avatarFrame.evaluate(() => {
      const samples: Sample[] = [];
      (window as unknown as { samples: Sample[] }).samples = samples;
      const tick = () => {
        const hook = (window as unknown as { __personaAvatar?: { audio: { utt: number } | null } }).__personaAvatar;
        const bubble = document.querySelector('.ps-assistant');
        samples.push({
          at: Date.now(),
          heard: hook?.audio?.utt ?? null,
          label: document.querySelector('.ps-status')?.textContent ?? '',
          text: bubble instanceof HTMLElement && !bubble.hidden && bubble.getClientRects().length > 0,
        });
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    // The greeting is heard, then it ends and a second has passed.
    const samples = () => avatarFrame.evaluate(() => (window as unknown as { samples: Sample[] }).samples);
    await expect.poll(async () => (await samples()).some((s) => s.heard !== null), { timeout: 45_000 }).toBe(true);
    await expect
      .poll(async () => {
        const all = await samples();
        const last = all.map((s) => s.heard !== null).lastIndexOf(true);
        return last >= 0 && all.at(-1)!.at - all[last]!.at > 1500;
      }, { timeout: 45_000 })
      .toBe(true);
    const all = await samples();
    const host = await page.evaluate(() => ({
      polls: (window as unknown as { polls: { sent: number; at: number; state: string }[] }).polls,
      events: (window as unknown as { events: { at: number; eventName: string; eventParams: Record<string, unknown> }[] }).events,
    }));

    const heard = all.filter((s) => s.heard !== null);
    const start = heard[0]!.at;
    const end = heard.at(-1)!.at;
    const spokeMs = end - start;
    // The player's 20 ms tick and the frame's reading of the clock happen at different moments,
    // further apart on a busy machine, and with reduced motion (the e2e default) a silent avatar
    // is drawn every 250 ms, so the hook's reading lags the end by up to that: a margin at each
    // edge of the audible span: the 250 ms draw plus as much again for a loaded CI run.
    const EDGE = 500;
    // The hook reads the audio clock on the stage's frames, so it sees nothing before the face is
    // drawn: while the voice could play over a face still loading, its first reading came up to
    // 1.6 s after the page's own "speaking" on loaded CI runs (the page was right, the hook late).
    // The voice now waits for the face; the defects this catches were 2-4 s: held to 1 s.
    const LEAD = 1000;
    const inside = (t: number) => t > start + EDGE && t < end - EDGE;
    const after = (t: number) => t > end + EDGE;
    const before = (t: number) => t < start - LEAD;

    const labelsWhileHeard = heard.filter((s) => inside(s.at));
    const wrongLabels = labelsWhileHeard.filter((s) => s.label !== 'Speaking');
    const pollsWhileHeard = host.polls.filter((p) => inside(p.sent) && inside(p.at));
    const wrongPolls = pollsWhileHeard.filter((p) => p.state !== 'speaking');
    const stateEvents = host.events.filter((e) => e.eventName === 'state').map((e) => ({ at: e.at, state: e.eventParams.state as string }));
    const firstText = all.find((s) => s.text)?.at ?? Infinity;
    const chat = host.events.find((e) => e.eventName === 'trl-chat' && e.eventParams.message === GREETING)?.at ?? Infinity;
    const firstFrame = await avatarFrame.evaluate(() => {
      const hook = (window as unknown as { __personaAvatar?: { firstFrameAt: number | null } }).__personaAvatar;
      return hook?.firstFrameAt == null ? null : Date.now() - performance.now() + hook.firstFrameAt;
    });
    const figures = {
      spokeMs,
      faceBeforeVoiceMs: firstFrame === null ? null : start - firstFrame,
      stageServedBeforeVoiceMs: start - stageServed,
      labelPolls: labelsWhileHeard.length,
      labelsNotSpeaking: wrongLabels.length,
      getStatePolls: pollsWhileHeard.length,
      getStateNotSpeaking: wrongPolls.length,
      textBeforeVoiceMs: start - firstText,
      trlChatBeforeVoiceMs: start - chat,
      states: stateEvents.map((e) => `${e.state}@${e.at - start}`).join(' '),
    };
    console.log(`avatar state while the greeting is heard: ${JSON.stringify(figures)}`);
    expect(spokeMs).toBeGreaterThan(3000);
    expect(labelsWhileHeard.length).toBeGreaterThan(20);
    expect(pollsWhileHeard.length).toBeGreaterThan(10);
    // The face is drawn before the voice is heard (the stage's code came 2.5 s late).
    expect(firstFrame, 'the stage drew').not.toBeNull();
    expect(stageServed).toBeLessThan(start);
    expect.soft(speakingAtOf(stateEvents), 'the speaking event after the face is drawn').toBeGreaterThanOrEqual(firstFrame!);
    // Speaking throughout audible speech: the header and getState.
    expect.soft(wrongLabels.map((s) => `${s.label}@${s.at - start}`), 'header while heard').toEqual([]);
    expect.soft(wrongPolls.map((p) => `${p.state}@${p.sent - start}`), 'getState while heard').toEqual([]);
    // Not "Speaking" over a silent stage before the voice.
    expect.soft(all.filter((s) => before(s.at) && s.label === 'Speaking').length, 'Speaking before the voice').toBe(0);
    expect.soft(host.polls.filter((p) => before(p.at) && p.state === 'speaking').length, 'getState speaking before the voice').toBe(0);
    // The state events: speaking once the voice is heard, listening only after it.
    const speakingAt = speakingAtOf(stateEvents);
    expect.soft(Math.abs(speakingAt - start), 'speaking event at the first sample').toBeLessThan(LEAD);
    expect.soft(stateEvents.filter((e) => inside(e.at)).map((e) => e.state), 'state events while heard').toEqual([]);
    expect.soft(stateEvents.at(-1)?.state).toBe('listening');
    expect.soft(Math.abs(stateEvents.at(-1)!.at - end), 'listening event at the last sample').toBeLessThan(EDGE);
    // Listening after: the header (the mic is live) and getState.
    const labelsAfter = all.filter((s) => after(s.at)).map((s) => s.label);
    expect(labelsAfter.length).toBeGreaterThan(5);
    expect.soft([...new Set(labelsAfter)], 'header after').toEqual(['Listening…']);
    const pollsAfter = host.polls.filter((p) => after(p.sent)).map((p) => p.state);
    expect(pollsAfter.length).toBeGreaterThan(3);
    expect.soft([...new Set(pollsAfter)], 'getState after').toEqual(['listening']);
    // The greeting's text shows with its voice, not seconds before it (in the page and to the host).
    expect.soft(firstText, 'text shown before the voice').toBeGreaterThan(start - LEAD);
    expect.soft(chat, 'trl-chat before the voice').toBeGreaterThan(start - LEAD);
    await page.screenshot({ path: test.info().outputPath('avatar-state-host-1280.png') });

    // The avatar page itself at both widths: speaking while the greeting is heard, then listening.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(avatarUrl);
    const status = page.locator('.ps-status');
    await expect(status).toHaveText('Speaking', { timeout: 45_000 });
    await page.screenshot({ path: test.info().outputPath('avatar-state-speaking-390.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: test.info().outputPath('avatar-state-speaking-1280.png') });
    await expect(status).toHaveText('Listening…', { timeout: 45_000 });
    await page.screenshot({ path: test.info().outputPath('avatar-state-listening-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: test.info().outputPath('avatar-state-listening-390.png') });
  } finally {
    await new Promise<void>((resolve) => site.close(() => resolve()));
  }
});
