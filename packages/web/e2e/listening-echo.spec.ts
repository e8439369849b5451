import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { FACE_ARGS, waitForFrames } from './support/avatar-face';
import { TURN_DEFAULTS } from '../../worker/src/listening/options';
import { VAD_WINDOW_MS } from '../../worker/src/listening/vad';
import { visitorWav } from './support/espeak';
import { HARBOUR_ANSWER, longAnswerAvatar, recordWorkerFrames } from './support/talk-over';

/**
 * The avatar on a laptop's speakers without headphones (issue 29, ADR 103, 108): whatever the page
 * plays comes back into its microphone 50 ms later at −10 dB. Chromium's fake microphone plays a
 * file from when the page opens it, so it cannot put the echo after the page's real playback; this
 * spec builds the room in the page instead. An init script taps the avatar's player (the gain node
 * the page connects to its output) into a "room" AudioContext — a 50 ms delay, a −10 dB gain — and
 * answers `getUserMedia` with the room's stream, into which it also plays the visitor's questions
 * (espeak-ng) when the test says. No browser echo cancellation applies to such a stream: the
 * page's own canceller (ADR 108) and the worker's behind it are all there is.
 *
 * A two-minute conversation — the greeting, a question, a ~55 s answer, a second question, a
 * ~35 s answer — must have no interruption of the avatar by its own voice, and no turn made of its
 * own words: exactly the visitor's two questions reach the model (a pause resumed at once is
 * allowed, within bounds; see the assertion).
 */
const FIRST = HARBOUR_ANSWER;
/**
 * The longest pause that is a hiccup: one the worker ends by its early rule (ADR 104) — a burst of
 * voice up to shortBurstMs (450 ms, counted from the hold), the silence that ends it (up to
 * verdictBudgetMs, 224 ms), one VAD window — plus the frames' way (mic → worker → page: 100 ms).
 */
const BRIEF_PAUSE_MS = TURN_DEFAULTS.shortBurstMs + TURN_DEFAULTS.verdictBudgetMs + VAD_WINDOW_MS + 100;
const SECOND = [
  'The ferry to the island leaves from the north pier every hour from seven in the morning.',
  'Tickets are sold on board, and bicycles travel free of charge on weekdays.',
  'The crossing takes twenty minutes when the sea is calm and a little longer in a westerly wind.',
  'On the island there is a cafe by the landing stage, a small beach and a path along the cliffs.',
  'The last boat back leaves at nine in the evening in summer and at six in winter.',
].join(' ');
const QUESTIONS = [visitorWav([300, 'Hello, tell me about the harbour.', 600]), visitorWav([300, 'And how do I get to the island?', 600])];

/** Runs in the page before its scripts: the room, and getUserMedia answered by it. */
function roomScript({ delayMs, gainDb }: { delayMs: number; gainDb: number }) {
  type Room = { ctx: AudioContext; mic: MediaStreamAudioDestinationNode; meter: AnalyserNode };
  let room: Room | null = null;
  const connect = AudioNode.prototype.connect as (this: AudioNode, target: AudioNode | AudioParam, ...rest: number[]) => AudioNode | void;
  const open = (): Room => {
    if (room) return room;
    const ctx = new AudioContext({ sampleRate: 48_000 });
    const mic = ctx.createMediaStreamDestination();
    const meter = ctx.createAnalyser();
    meter.fftSize = 2048;
    // An analyser is only run when something pulls it: a silent path to the room's output does.
    const sink = ctx.createGain();
    sink.gain.value = 0;
    connect.call(meter, sink);
    connect.call(sink, ctx.destination);
    room = { ctx, mic, meter };
    return room;
  };
  /** The room brings `stream` back into the microphone: `delayMs` later, `gainDb` down. */
  const echoOf = (stream: MediaStream) => {
    const r = open();
    const source = r.ctx.createMediaStreamSource(stream);
    const delay = r.ctx.createDelay(1);
    delay.delayTime.value = delayMs / 1000;
    const gain = r.ctx.createGain();
    gain.gain.value = 10 ** (gainDb / 20);
    connect.call(source, delay);
    connect.call(delay, gain);
    connect.call(gain, r.mic);
    connect.call(gain, r.meter);
    w.__room.taps++;
  };
  // What the visitor hears is what the room brings back: the page's player straight to the
  // speakers until its loopback (ADR 085: the voice through an RTCPeerConnection into an audio
  // element, so that the browser's echo canceller sees it) takes over, then that element's stream.
  const direct = new Map<AudioNode, MediaStreamAudioDestinationNode>();
  AudioNode.prototype.connect = function (this: AudioNode, target: AudioNode | AudioParam, ...rest: number[]) {
    const out = connect.call(this, target, ...rest);
    if (target === this.context.destination && this instanceof GainNode && !direct.has(this) && this.context !== room?.ctx) {
      const tap = (this.context as AudioContext).createMediaStreamDestination();
      connect.call(this, tap);
      direct.set(this, tap);
      echoOf(tap.stream);
    }
    return out as AudioNode;
  } as typeof AudioNode.prototype.connect;
  const disconnect = AudioNode.prototype.disconnect as (this: AudioNode, ...args: unknown[]) => void;
  AudioNode.prototype.disconnect = function (this: AudioNode, ...args: unknown[]) {
    disconnect.apply(this, args);
    const tap = direct.get(this);
    if (tap && (args.length === 0 || args[0] === this.context.destination)) {
      disconnect.call(this, tap);
      direct.delete(this);
    }
  } as typeof AudioNode.prototype.disconnect;
  const srcObject = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'srcObject')!;
  Object.defineProperty(HTMLMediaElement.prototype, 'srcObject', {
    ...srcObject,
    set(this: HTMLMediaElement, value: MediaProvider | null) {
      srcObject.set!.call(this, value);
      if (value instanceof MediaStream && value.getAudioTracks().length > 0) echoOf(value);
    },
  });
  const w = window as unknown as { __room: { say(n: number): Promise<void>; echoLevel(): number; micOpened: boolean; taps: number; state(): string } };
  w.__room = {
    micOpened: false,
    taps: 0,
    state: () => `${room?.ctx.state ?? 'none'} at ${room?.ctx.currentTime.toFixed(1) ?? '-'} s`,
    async say(n: number) {
      const r = open();
      const data = await (await fetch(`/__e2e/question-${n}.wav`)).arrayBuffer();
      const buffer = await r.ctx.decodeAudioData(data);
      const voice = r.ctx.createBufferSource();
      voice.buffer = buffer;
      connect.call(voice, r.mic);
      await new Promise<void>((resolve) => {
        voice.onended = () => resolve();
        voice.start();
      });
    },
    /** The echo's RMS now (what the room brings back of the avatar, before the visitor's voice). */
    echoLevel() {
      const r = open();
      const buf = new Float32Array(r.meter.fftSize);
      r.meter.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const x of buf) sum += x * x;
      return Math.sqrt(sum / buf.length);
    },
  };
  navigator.mediaDevices.getUserMedia = async () => {
    const r = open();
    if (r.ctx.state === 'suspended') await r.ctx.resume();
    w.__room.micOpened = true;
    return r.mic.stream;
  };
}

test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: FACE_ARGS }, trace: 'off' });

// The room's stream is not a device: the browser cancels no echo on it (its track says so), so the
// page's own canceller does (ADR 108), its far end what the page makes audible; the worker's
// (ADR 103) stays behind it. The log at the end prints the page canceller's delays (found, moved,
// lost), the mic's rate, and the worker's pauses, interruptions and transcripts with their times.
test('on speakers, its own voice back in the microphone (50 ms, −10 dB): two minutes with no interruption and no turn of its own words, at most a brief pause', async ({ page }) => {
  test.setTimeout(300_000);
  const { id, llm } = await longAnswerAvatar('echo', (turn) => (turn === 0 ? FIRST : SECOND));
  const frames = recordWorkerFrames(page);
  // The page's mic frames (20 ms each) as they leave: a starved page sends fewer than real time.
  const mic = { first: 0, count: 0 };
  /** Utterances the page reports played to their end (its `playback` reports to the worker). */
  const playedOut = new Set<number>();
  const echoLog: { delayMs: number | null; delayFound: number; delayLost: number; echoBlocks: number; activeBlocks: number; at: number }[] = [];
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/avatar-ws')) return;
    ws.on('framesent', ({ payload }) => {
      if (typeof payload === 'string') {
        const report = JSON.parse(payload) as { type?: string; state?: string; utt?: number };
        if (report.type === 'playback' && report.state === 'ended' && report.utt !== undefined) playedOut.add(report.utt);
        return;
      }
      mic.first ||= Date.now();
      mic.count++;
    });
  });
  try {
    for (const [n, file] of QUESTIONS.entries()) {
      await page.route(`**/__e2e/question-${n}.wav`, (route) => route.fulfill({ contentType: 'audio/wav', body: fs.readFileSync(file) }));
    }
    await page.addInitScript(roomScript, { delayMs: 50, gainDb: -10 });
    await page.goto(`/avatar/${id}?autoConnect=true&chatOpen=true`);
    await waitForFrames(page);
    await page.evaluate(() => (window as unknown as { __personaAvatar?: { probe?: () => void } }).__personaAvatar?.probe?.());
    await expect(page.getByRole('button', { name: 'Turn microphone off' })).toBeVisible({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { __room: { micOpened: boolean } }).__room.micOpened)).toBe(true);
    const log = page.getByRole('log', { name: 'Conversation' });
    const say = (n: number) => page.evaluate((k) => (window as unknown as { __room: { say(n: number): Promise<void> } }).__room.say(k), n);
    const echoLevel = () => page.evaluate(() => (window as unknown as { __room: { echoLevel(): number } }).__room.echoLevel());
    /** The page's own canceller (ADR 108): each change of the delay it uses, for the record. */
    const micEcho = async () => {
      const stats = await page.evaluate(() => (window as unknown as { __personaAvatar?: { micEcho: { delayMs: number | null; delayFound: number; delayLost: number; echoBlocks: number; activeBlocks: number } | null } }).__personaAvatar?.micEcho ?? null);
      const last = echoLog.at(-1);
      if (stats && (!last || last.delayMs !== stats.delayMs || last.delayFound !== stats.delayFound || last.delayLost !== stats.delayLost)) echoLog.push({ ...stats, at: Date.now() });
    };

    /** Waits until an answer's utterance has played to its end in the page (the probe's history). */
    const played = async (starts: string) => {
      await expect.poll(() => frames.find((f) => f.type === 'assistant' && (f.text ?? f.delta ?? '').startsWith(starts))?.utt, { message: `"${starts}" is said`, timeout: 60_000 }).not.toBeUndefined();
      const utt = frames.find((f) => f.type === 'assistant' && (f.text ?? f.delta ?? '').startsWith(starts))!.utt!;
      // While it plays, the room brings it back: the echo is really in the microphone.
      let loudest = 0;
      await expect
        .poll(
          async () => {
            loudest = Math.max(loudest, await echoLevel());
            await micEcho();
            return frames.some((f) => f.type === 'utterance' && f.utt === utt && (f as { phase?: string }).phase === 'end');
          },
          { message: `"${starts}" is sent to its end`, timeout: 150_000, intervals: [250] },
        )
        .toBe(true);
      // Played out: the page reports it heard to its end (its `playback` report). Not "the page
      // plays it no longer": a held answer (a pause) plays no longer either, and a question said
      // then would talk over it; nor "seen playing": a short greeting can fall between two frames.
      await expect
        .poll(
          async () => {
            loudest = Math.max(loudest, await echoLevel());
            await micEcho();
            return playedOut.has(utt);
          },
          { message: 'it has played out', timeout: 120_000, intervals: [250] },
        )
        .toBe(true);
      return { utt, loudest };
    };

    // The greeting, then the first question; the long answer plays over its own echo.
    await expect(log.locator('.ps-assistant').first()).toBeVisible({ timeout: 30_000 });
    // The visitor lets it finish its greeting (a question over it would rightly pause it).
    await played('Hi');
    await say(0);
    await expect(log.locator('.ps-user')).toHaveCount(1, { timeout: 60_000 });
    const first = await played('The harbour was dug by hand');
    await say(1);
    await expect(log.locator('.ps-user')).toHaveCount(2, { timeout: 60_000 });
    const second = await played('The ferry to the island');

    console.log(`room: ${JSON.stringify(await page.evaluate(() => { const r = (window as unknown as { __room: { taps: number; state(): string } }).__room; return { taps: r.taps, state: r.state() }; }))}; echo peaks ${first.loudest.toFixed(4)} / ${second.loudest.toFixed(4)}; frames: ${frames.filter((f) => ['pause', 'resume', 'interrupted', 'transcript'].includes(f.type) && (f.type !== 'transcript' || f.final)).map((f) => `${f.type}${f.text ? ` "${f.text}"` : ''}`).join(', ')}`);
    // The echo was there (−10 dB of a voice is ~−30 dBFS: far above the room's silence)...
    expect(first.loudest).toBeGreaterThan(0.01);
    // The page's own canceller ran (the room's stream reports no browser echo cancellation) and found the path.
    expect(echoLog.at(-1)?.delayFound ?? 0).toBeGreaterThan(0);
    expect(second.loudest).toBeGreaterThan(0.01);
    // ...and the avatar never heard itself: no interruption, only the two questions. The page's
    // audio clocks jump now and then (ADR 108) and a stretch of echo can hold it for a moment (0–5
    // pauses of up to 440 ms in the runs so far on a quiet machine or with a core taken; 739 ms once
    // in CI on a machine three times slower, as the loopback took over and the path moved 20 ms) —
    // a hiccup, not a stop: each pause is one the worker's early rule ends (ADR 104: a burst of at
    // most shortBurstMs, then verdictBudgetMs of silence) plus a frame's way there and back, not
    // one that waited for the recogniser's verdict; at most one per 12 s of its voice.
    expect(frames.filter((f) => f.type === 'interrupted').map((f) => `${f.type} ${f.utt}`)).toEqual([]);
    const held = frames.flatMap((f, i) => {
      if (f.type !== 'pause') return [];
      const end = frames.slice(i + 1).find((g) => g.type === 'resume' || g.type === 'interrupted');
      return [end?.type === 'resume' ? end.at - f.at : Infinity];
    });
    console.log(`pauses: ${held.length} (${held.map((ms) => `${ms} ms`).join(', ') || 'none'})`);
    for (const ms of held) expect(ms).toBeLessThanOrEqual(BRIEF_PAUSE_MS);
    expect(held.length).toBeLessThanOrEqual(7);
    await expect(log.locator('.ps-user')).toHaveCount(2);
    expect(llm.chatBodies()).toHaveLength(2);
    const userTurns = (llm.chatBodies()[1]!.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => String(m.content));
    expect(userTurns).toHaveLength(2);
    for (const answerWords of ['harbour was dug', 'granite', 'lighthouse', 'ferry', 'island for the regatta']) {
      for (const said of userTurns) expect(said.toLowerCase()).not.toContain(answerWords);
    }
    await expect(log.locator('.ps-assistant').filter({ hasText: 'And that is the whole story of the harbour.' })).toHaveCount(1);
    await expect(log.locator('[data-interrupted="true"]')).toHaveCount(0);
  } finally {
    // For the record (and a failure's reader): how the page kept up, and what the worker did.
    console.log(`mic: ${mic.count} frames of 20 ms in ${((Date.now() - mic.first) / 1000).toFixed(1)} s (${((mic.count * 2000) / Math.max(1, Date.now() - mic.first)).toFixed(0)} % of real time); page canceller: ${echoLog.map((e) => `${((e.at - mic.first) / 1000).toFixed(1)} s: ${e.delayMs?.toFixed(1) ?? '-'} ms (found ${e.delayFound}, lost ${e.delayLost}, echo ${e.echoBlocks}/${e.activeBlocks})`).join(' → ') || 'never ran'}; worker: ${frames.filter((f) => ['pause', 'resume', 'interrupted', 'utterance'].includes(f.type) || (f.type === 'transcript' && f.final)).map((f) => `${((f.at - mic.first) / 1000).toFixed(1)} s ${f.type}${f.type === 'utterance' ? ` ${f.utt} ${(f as { phase?: string }).phase}` : ''}${f.text ? ` "${f.text}"` : ''}`).join(', ')}`);
    await llm.close();
  }
});
