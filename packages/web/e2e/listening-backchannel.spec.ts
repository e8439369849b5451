import { expect, test, type Page } from '@playwright/test';
import { FACE_ARGS, waitForFrames } from './support/avatar-face';
import { fakeMicArgs, visitorWav } from './support/espeak';
import { HARBOUR_ANSWER, longAnswerAvatar, recordWorkerFrames } from './support/talk-over';

/**
 * Backchannels and a real interruption over the talking avatar (issue 29), on the built server's
 * embedded worker (Silero VAD, RNNoise, the offline recogniser, the offline voice), the visitor
 * being Chromium's fake microphone: "mm-hm" and "yeah" over the answer — it goes on (held at most
 * for a moment, then resumed where it stopped, never interrupted, no turn); then "wait, stop" —
 * it stops. Times are taken in the page, on one clock: when the visitor's sound starts and ends
 * (an analyser on the same microphone stream the page captures) and when the avatar's voice is
 * heard (the page's probe of its player, `__personaAvatar.audio`), sampled every 5 ms.
 *
 * The issue's targets: a backchannel resumed within 300 ms, a stop request stopping the voice
 * within 300 ms. Both figures are printed. What is asserted does not depend on the machine's load:
 * the backchannels never interrupt and the avatar resumes the same utterance before "wait"; "wait,
 * stop" holds the voice before it is interrupted and is the only turn. On this shared two-core
 * machine the VAD's lag alone has reached 1.4 s (load average 14) and pocketsphinx's answer seconds
 * (ADR 095, 096), so the 300 ms are asserted only with LISTENING_TARGETS=1 (an idle machine).
 * "Mm-hm" is said at a human length (~0.5 s: espeak's default rate makes it 0.8 s, which the offline
 * recogniser has heard as "two", "damn" or "i am" — ADR 100).
 */
const ANSWER = HARBOUR_ANSWER;

// The question ends ~5.5 s in; the answer is ~55 s of voice. The backchannels come 20 s and 27 s
// after the question, "wait, stop" 34 s after it: inside the answer even when a loaded machine
// took ~15 s to recognise the question and start speaking.
const wav = visitorWav([3000, 'Hello, tell me about the harbour.', 20_000, { text: 'Mm-hm.', wordsPerMinute: 240 }, 6500, 'Yeah.', 6500, 'Wait, stop.', 8000]);
const TARGETS = process.env.LISTENING_TARGETS === '1';

// bypassCSP: the meter's worklet is a blob: module, which the avatar page's policy does not allow.
test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...FACE_ARGS, ...fakeMicArgs(wav)] }, trace: 'off', bypassCSP: true });

interface Timeline {
  /** The visitor's sounds: start and end (Date.now() in the page). */
  sounds: { start: number; end: number | null }[];
  /** The avatar's voice heard: each change of utterance or position (null: silent). */
  heard: { at: number; utt: number | null; ms: number | null }[];
}

/**
 * Instruments the page before its scripts run: the first audio stream it captures gets an
 * analyser (its peak, every 5 ms: a sound starts above −34 dBFS and ends 150 ms after the last
 * such sample), and the avatar probe's `audio` is sampled at the same pace.
 */
async function instrument(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __timeline: Timeline; __personaAvatar?: { audio?: { utt: number; ms: number } | null } };
    const tl: Timeline = { sounds: [], heard: [] };
    w.__timeline = tl;
    let last: string | null = null;
    setInterval(() => {
      const a = w.__personaAvatar?.audio ?? null;
      const key = a ? `${a.utt}:${Math.round(a.ms)}` : 'null';
      if (key !== last) {
        last = key;
        tl.heard.push({ at: Date.now(), utt: a?.utt ?? null, ms: a?.ms ?? null });
        if (tl.heard.length > 20_000) tl.heard.splice(0, 10_000);
      }
    }, 5);
    const media = navigator.mediaDevices;
    const original = media.getUserMedia.bind(media);
    let current: MediaStream | null = null;
    media.getUserMedia = async (constraints?: MediaStreamConstraints) => {
      const stream = await original(constraints);
      if (!constraints?.audio) return stream;
      // The page's latest capture is the one measured (it may open the microphone again).
      current = stream;
      (tl as Timeline & { opened?: number[] }).opened = [...((tl as Timeline & { opened?: number[] }).opened ?? []), Date.now()];
      // Measured on the audio thread (the page's main thread stalls for seconds while the 3D
      // avatar loads on a software GPU): an onset above −34 dBFS, an end 150 ms after the last one.
      const ctx = new AudioContext();
      const meter = `registerProcessor('onset-meter', class extends AudioWorkletProcessor {
        constructor() { super(); this.on = false; this.last = 0; }
        process(inputs) {
          const ch = inputs[0] && inputs[0][0];
          if (!ch) return true;
          let peak = 0;
          for (let i = 0; i < ch.length; i++) peak = Math.max(peak, Math.abs(ch[i]));
          if (peak > 0.02) {
            if (!this.on) { this.on = true; this.port.postMessage({ start: currentTime }); }
            this.last = currentTime + ch.length / sampleRate;
          } else if (this.on && currentTime - this.last > 0.15) {
            this.on = false;
            this.port.postMessage({ end: this.last });
          }
          return true;
        }
      });`;
      const measure = (node: AudioWorkletNode) => {
        const mute = ctx.createGain();
        mute.gain.value = 0;
        ctx.createMediaStreamSource(stream).connect(node).connect(mute).connect(ctx.destination);
        // Audio-context seconds → Date.now() ms, through the context's own timestamp.
        const wall = (t: number) => {
          const ts = ctx.getOutputTimestamp();
          return Math.round(performance.timeOrigin + (ts.performanceTime ?? 0) + (t - (ts.contextTime ?? 0)) * 1000);
        };
        node.port.onmessage = (e: MessageEvent<{ start?: number; end?: number }>) => {
          if (current !== stream) return;
          if (e.data.start !== undefined) tl.sounds.push({ start: wall(e.data.start), end: null });
          else if (e.data.end !== undefined) {
            const open = tl.sounds.at(-1);
            if (open && open.end === null) open.end = wall(e.data.end);
          }
        };
      };
      // Not awaited: the page gets its stream at once, whatever happens to the meter.
      void ctx.audioWorklet
        .addModule(URL.createObjectURL(new Blob([meter], { type: 'application/javascript' })))
        .then(() => measure(new AudioWorkletNode(ctx, 'onset-meter')))
        .catch((err: unknown) => ((tl as Timeline & { error?: string }).error = String(err)));
      return stream;
    };
  });
}

const timeline = (page: Page) => page.evaluate(() => (window as unknown as { __timeline: Timeline }).__timeline);

/**
 * How much earlier than the meter's onset the worker's hold on a sound may arrive: the meter runs in
 * a context of its own and maps its clock to Date.now() through its output timestamp, so its onset
 * can lag the capture the page sends (a local run saw the hold on "wait, stop" 12 ms before it,
 * and a window starting at the onset gave it to "yeah" before). Far under the seconds between sounds.
 */
const ONSET_SLACK_MS = 100;

/** The visitor's utterances: sounds less than a second apart (a comma's pause) are one. */
function utterances(tl: Timeline): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const s of tl.sounds) {
    if (s.end === null) continue;
    const prev = out.at(-1);
    if (prev && s.start - prev.end < 1000) prev.end = s.end;
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/** When the voice of `utt` stopped advancing after `from`: the first sample at or after it where it is silent or another utterance. */
function stoppedAt(tl: Timeline, utt: number, from: number): number | null {
  const after = tl.heard.filter((h) => h.at >= from);
  const stop = after.find((h) => h.utt !== utt);
  return stop?.at ?? null;
}

/** When `utt` was heard again after a hold that began at or after `from`. */
function resumedAt(tl: Timeline, utt: number, from: number): number | null {
  const after = tl.heard.filter((h) => h.at >= from);
  const silent = after.findIndex((h) => h.utt !== utt);
  if (silent < 0) return null;
  return after.slice(silent).find((h) => h.utt === utt)?.at ?? null;
}

test('backchannels over the avatar: it goes on; "wait, stop": it stops (times printed against the 300 ms targets)', async ({ page }) => {
  test.setTimeout(240_000);
  const { id, llm } = await longAnswerAvatar('backchannel', (turn) => (turn === 0 ? ANSWER : 'Of course.'));
  const frames = recordWorkerFrames(page);
  try {
    await instrument(page);
    await page.goto(`/avatar/${id}?autoConnect=true&chatOpen=true`);
    await waitForFrames(page);
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect(page.getByRole('button', { name: 'Turn microphone off' })).toBeVisible({ timeout: 20_000 });
    await expect(log.locator('.ps-user').first()).toBeVisible({ timeout: 40_000 });
    const answer = log.locator('.ps-assistant').filter({ hasText: 'The harbour was dug by hand' }).first();
    await expect(answer).toBeVisible({ timeout: 30_000 });
    const answerFrame = () => frames.find((f) => f.type === 'assistant' && (f.text ?? f.delta ?? '').includes('The harbour was dug'));
    await expect.poll(() => answerFrame()?.utt, { timeout: 20_000 }).not.toBeUndefined();
    const utt = answerFrame()!.utt!;
    const low = utt & 0xffff;

    // The sounds: the question, then "mm-hm", "yeah", "wait, stop" (its comma may split it in two).
    await expect.poll(async () => utterances(await timeline(page)).length, { message: 'the visitor\u2019s four utterances', timeout: 90_000 }).toBeGreaterThanOrEqual(4);
    await expect.poll(() => frames.some((f) => f.type === 'interrupted' && f.utt === utt), { message: '"wait, stop" interrupts the answer', timeout: 30_000 }).toBe(true);
    const tl = await timeline(page);
    const said = utterances(tl);
    const t0 = said[0]!.start;
    // What happened, printed for the record (and for a failure's reader).
    console.log(`visitor: ${said.map((u) => `${u.start - t0}–${u.end - t0}`).join(', ')} ms; worker: ${frames.filter((f) => ['pause', 'resume', 'interrupted', 'transcript'].includes(f.type)).map((f) => `${f.type}${f.type === 'transcript' ? ` "${f.text}"${f.final ? '' : '…'}` : ''} @${f.at - t0}`).join(', ')}`);
    const [, mmhm, yeah, wait] = said;

    // The backchannels: never an interruption before "wait"; every hold on them ends with a resume
    // of the same utterance before it.
    const interruptedAt = frames.find((f) => f.type === 'interrupted' && f.utt === utt)!.at;
    expect(interruptedAt).toBeGreaterThan(wait!.start);
    const figures: string[] = [];
    for (const [name, sound, next] of [['mm-hm', mmhm!, yeah!], ['yeah', yeah!, wait!]] as const) {
      const paused = frames.find((f) => f.type === 'pause' && f.utt === utt && f.at >= sound.start - ONSET_SLACK_MS && f.at < next.start - ONSET_SLACK_MS);
      if (!paused) {
        figures.push(`${name}: not held (the voice went on)`);
        continue;
      }
      const resumed = frames.find((f) => f.type === 'resume' && f.utt === utt && f.at >= paused.at);
      expect(resumed, `${name}: resumed`).toBeDefined();
      expect(resumed!.at).toBeLessThan(wait!.start);
      const heardAgain = resumedAt(tl, low, paused.at);
      figures.push(
        `${name}: held ${paused.at - sound.start} ms after it started, resumed ${resumed!.at - sound.end} ms after it ended` +
          (heardAgain === null ? '' : ` (voice again in the page ${heardAgain - sound.end} ms after)`),
      );
    }
    // "Wait, stop": the worker holds the voice (at the start of the speech, before any word: the
    // page stops it when the frame arrives), and then interrupts it.
    const held = frames.find((f) => (f.type === 'pause' || f.type === 'interrupted') && f.utt === utt && f.at >= wait!.start - ONSET_SLACK_MS)!;
    const holdMs = held.at - wait!.start;
    const stopped = stoppedAt(tl, low, wait!.start);
    figures.push(`wait, stop: ${held.type} ${holdMs} ms after it started${stopped === null ? '' : `, voice silent in the page after ${stopped - wait!.start} ms`}, interrupted ${interruptedAt - wait!.start} ms after`);
    console.log(`backchannels e2e: ${figures.join('; ')}`);
    if (held.type === 'pause') expect(held.at).toBeLessThan(interruptedAt);
    if (TARGETS) {
      expect(holdMs).toBeLessThanOrEqual(300);
      for (const sound of [mmhm!, yeah!]) {
        const resumed = frames.find((f) => f.type === 'resume' && f.utt === utt && f.at >= sound.end && f.at < wait!.start);
        if (resumed) expect(resumed.at - sound.end).toBeLessThanOrEqual(300);
      }
    }

    // Only "wait, stop" was a turn: the model was asked twice (the question, then it).
    await expect(answer).toHaveAttribute('data-interrupted', 'true', { timeout: 10_000 });
    await expect.poll(() => llm.chatBodies().length, { timeout: 40_000 }).toBe(2);
    const second = (llm.chatBodies()[1]!.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => String(m.content));
    expect(second.join(' | ').toLowerCase()).not.toMatch(/\b(mm|hm|yeah)\b/);
  } finally {
    const tl = await timeline(page).catch(() => null);
    if (tl) console.log(`timeline: error ${(tl as Timeline & { error?: string }).error}; opened ${JSON.stringify((tl as Timeline & { opened?: number[] }).opened)}; sounds ${JSON.stringify(tl.sounds)}; pauses ${JSON.stringify(frames.filter((f) => ['pause', 'resume', 'interrupted', 'transcript', 'utterance'].includes(f.type)).map((f) => [f.type, f.at, f.utt, f.text]))}`);
    await llm.close();
  }
});
