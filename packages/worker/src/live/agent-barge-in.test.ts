import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { AudioFrameKind, LiveCode, writeAudioFrame, type TLiveHistoryEntry } from '@persona/contract';
import { TURN_DEFAULTS, type TurnOptions } from '../listening/options.js';
import type { VadStream } from '../listening/vad.js';
import type { SttEngine } from '../providers/stt/types.js';
import { sessionConfig } from '../test/brain-deps.js';
import { fakePage, finals, framesOf, sendMic, until } from '../test/live-page.js';
import type { AgentJoiner } from './agent-bridge.js';
import { Conversation } from './conversation.js';
import { createRealtimeSession, heardPart, type RealtimeBrainConfig } from './realtime-session.js';

// Issue 15, bring your own agent (ADR 072) with the worker's transcripts (hello `transcripts: true`):
// the worker's VAD and STT hear the visitor speak over the agent's answer and interrupt it with the
// avatar's rules (allow_interruptions, min_interruption_duration, min_interruption_words — as for
// the LLM brain): the page holds then stops the avatar, the agent gets `interrupted` with what was
// heard, and the chat and history keep only that. The agent is a real socket on loopback.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let wss: WebSocketServer;
let url: string;
const accepted: WebSocket[] = [];
beforeAll(async () => {
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws) => accepted.push(ws));
  await new Promise((r) => wss.once('listening', r));
  url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => wss.close(() => r())));

/** A speech probability from the level of the window (the page's loud tone is speech, zeros are not). */
const levelVad: VadStream = {
  probability: async (w) => (w.reduce((m, x) => Math.max(m, Math.abs(x)), 0) > 0.05 ? 0.95 : 0.02),
  reset: () => undefined,
};
/** A batch STT answering each finalised segment with the next scripted text. */
function scriptedStt(texts: string[]): SttEngine {
  return {
    provider: 'scripted',
    mode: 'batch',
    async open(_o, events) {
      let samples = 0;
      return {
        push: (pcm) => void (samples += pcm.length),
        async finalize() {
          if (!samples) return;
          samples = 0;
          events.onResult({ text: texts.shift() ?? '', final: true });
        },
        reset: () => void (samples = 0),
        close: () => undefined,
      };
    },
  };
}

const baseOptions: TurnOptions = { ...TURN_DEFAULTS, minSilenceMs: 160, minEndpointingMs: 100, earlyTranscriptMs: 100, echoGuardMs: 100, minInterruptionMs: 300, falseInterruptionMs: 300 };
const WORDS = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
/** 6 s of the agent's answer at 16 kHz, in 100 ms frames. */
const AGENT_AUDIO_MS = 6000;

async function openSession(opts: { options?: Partial<TurnOptions>; heard: string[]; history?: TLiveHistoryEntry[] }) {
  const n = accepted.length;
  const agent = new WebSocket(url);
  const got: Record<string, unknown>[] = [];
  agent.on('message', (d, isBinary) => {
    if (!isBinary) got.push(JSON.parse(String(d)) as Record<string, unknown>);
  });
  await new Promise((r) => agent.once('open', r));
  await until(() => accepted.length > n);
  const joiner: AgentJoiner = {
    join: async () => ({ socket: accepted[n]!, sampleRate: 16_000, sessionId: 'sess-barge-in', transcripts: true }),
    listening: () => ({ stt: scriptedStt(opts.heard), vad: levelVad, options: { ...baseOptions, ...opts.options } }),
  };
  const brain: RealtimeBrainConfig = { kind: 'agent', framework: 'custom', greeting: '' };
  const histories: TLiveHistoryEntry[][] = [];
  const config = sessionConfig(brain, { textOnly: false, avatar: { nlpEngine: 12, setupMode: 3 }, ...(opts.history ? { history: opts.history, resumed: true } : {}) });
  const c = new Conversation({
    config,
    brain: null,
    realtime: createRealtimeSession({ brain, allowPrivateUrls: false, textOnly: false, agents: joiner, connectTimeoutMs: 3000 }),
    micOn: true,
    portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(h), end: async () => undefined },
    log: { info() {}, warn() {}, error() {} },
  });
  const page = fakePage();
  c.attach(page);
  await until(() => framesOf(page, 'state').some((f) => f.state === 'listening'), 8000, 'listening');
  const json = (frame: object) => agent.send(JSON.stringify(frame));
  /** The agent's answer: its words, then its audio (a tone) — faster than real time, as TTS output is. */
  const answer = (responseId: string, ms = AGENT_AUDIO_MS) => {
    json({ type: 'response.start', responseId });
    json({ type: 'text', delta: WORDS });
    for (let at = 0, seq = 0; at < ms; at += 100) {
      const pcm = Int16Array.from({ length: 1600 }, (_, i) => Math.round(5000 * Math.sin(i / 4)));
      agent.send(writeAudioFrame({ kind: AudioFrameKind.avatar, flags: 0, utterance: 0, seq: seq++ }, new Uint8Array(pcm.buffer)));
    }
  };
  /** The answer is playing on the page: `playedMs` of it heard so far. */
  const playing = async (playedMs: number) => {
    await until(() => framesOf(page, 'utterance').some((f) => f.phase === 'start'), 8000, 'the answer’s audio');
    await until(() => page.audio.length >= 50, 8000, 'most of the audio');
    const utt = framesOf(page, 'utterance')[0]!.utt;
    await sleep(150); // past the echo guard
    c.onMessage(JSON.stringify({ type: 'playback', utt, state: 'progress', playedMs }));
    return utt;
  };
  const done = async () => {
    await c.finish(LiveCode.hangUp);
    agent.close();
  };
  return { c, page, got, histories, json, answer, playing, agent, done };
}

describe('an external agent interrupted by the worker’s barge-in (hello transcripts: true)', () => {
  it('speech with words over the answer: pause, then interrupted with what was heard — to the page and to the agent; chat and history keep the heard part', async () => {
    const s = await openSession({ heard: ['please stop there'] });
    s.answer('a1');
    const utt = await s.playing(1500);
    sendMic(s.c, 600, true);
    await until(() => framesOf(s.page, 'pause').length === 1, 8000, 'pause');
    expect(framesOf(s.page, 'pause')[0]).toEqual({ type: 'pause', utt });
    // No words yet: not an interruption (yet).
    expect(framesOf(s.page, 'interrupted')).toEqual([]);
    sendMic(s.c, 400, false);
    await until(() => framesOf(s.page, 'interrupted').length === 1, 8000, 'interrupted');
    const cut = framesOf(s.page, 'interrupted')[0]!;
    expect(cut.utt).toBe(utt);
    // The page's 1.5 s, carried on to the pause (held playback is not heard).
    expect(cut.heardMs).toBeGreaterThanOrEqual(1500);
    expect(cut.heardMs).toBeLessThan(2500);
    await until(() => s.got.some((f) => f.type === 'interrupted'), 8000, 'the agent told');
    expect(s.got.find((f) => f.type === 'interrupted')).toEqual({ type: 'interrupted', responseId: 'a1', heardMs: cut.heardMs });
    await until(() => finals(s.page).some((f) => f.utt === utt), 8000, 'final');
    const final = finals(s.page).find((f) => f.utt === utt)!;
    expect(final).toMatchObject({ interrupted: true, text: heardPart(WORDS, cut.heardMs, AGENT_AUDIO_MS) });
    const kept = final.text!.split(' ').length;
    expect(kept).toBeGreaterThanOrEqual(5);
    expect(kept).toBeLessThan(20);
    // The visitor's words go to the agent (to answer) and the page.
    await until(() => s.got.some((f) => f.type === 'transcript' && f.final === true), 8000, 'transcript to the agent');
    expect(s.got.filter((f) => f.type === 'transcript' && f.final === true)).toEqual([{ type: 'transcript', text: 'please stop there', final: true }]);
    await until(() => framesOf(s.page, 'transcript').some((f) => f.final));
    // The rest of that answer is dropped even if the agent goes on sending it.
    const sent = s.page.audio.filter((a) => a.utt === utt).length;
    s.answer('a1-late', 500);
    await sleep(150);
    expect(s.page.audio.filter((a) => a.utt === utt).length).toBe(sent);
    await until(() => s.histories.some((h) => h.some((e) => e.role === 'user' && e.text)));
    const history = s.histories.at(-1)!;
    expect(history.find((e) => e.role === 'assistant')).toMatchObject({ text: final.text, interrupted: true });
    expect(history.find((e) => e.role === 'user')).toMatchObject({ text: 'please stop there' });
    // The transcript's detail (ADR 102): how much of the agent's answer was heard, of how long a one.
    expect(history.find((e) => e.role === 'assistant')!.detail).toEqual({ heardMs: cut.heardMs, fullChars: WORDS.length });
    await s.done();
  });

  it('the transcript’s detail (ADR 102): the agent’s revised transcripts are corrections, its leaving is an error with the question; the agent never gets the detail', async () => {
    const earlier: TLiveHistoryEntry[] = [
      { role: 'user', text: 'hi', at: 1 },
      { role: 'assistant', text: 'Hello.', at: 2, detail: { calls: [{ name: 'crm_lookup', arguments: '{}', ok: true, result: 'the customer’s data' }] } },
    ];
    const s = await openSession({ heard: [], history: earlier });
    await until(() => s.got.some((f) => f.type === 'history'), 8000, 'the history to the agent');
    expect(s.got.find((f) => f.type === 'history')).toEqual({ type: 'history', entries: [{ role: 'user', text: 'hi', at: 1 }, { role: 'assistant', text: 'Hello.', at: 2 }] });
    s.json({ type: 'transcript', text: 'I want to by', final: false });
    s.json({ type: 'transcript', text: 'I want a bye', final: false });
    s.json({ type: 'transcript', text: 'I want a boat', final: true });
    await until(() => s.histories.some((h) => h.some((e) => e.text === 'I want a boat')), 8000, 'the question');
    // The page saw the revised interim too (it replaced the one before).
    expect(framesOf(s.page, 'transcript').map((f) => f.text)).toEqual(['I want to by', 'I want a bye', 'I want a boat']);
    expect(s.histories.at(-1)!.find((e) => e.text === 'I want a boat')!.detail).toEqual({ interims: ['I want to by', 'I want a bye'] });
    s.agent.close();
    await until(() => s.histories.at(-1)!.find((e) => e.text === 'I want a boat')!.detail?.errors !== undefined, 8000, 'the error');
    expect(s.histories.at(-1)!.find((e) => e.text === 'I want a boat')!.detail!.errors).toEqual([{ provider: 'external-agent', code: 'failed', phase: 'connection' }]);
    await s.done();
  });

  it('too short (under min_interruption_duration) or too few words (min_interruption_words): paused, then resumed; the agent is not interrupted', async () => {
    for (const [options, speechMs, heard] of [
      [{}, 100, 'mm-hm'],
      [{ minInterruptionWords: 3 }, 600, 'okay'],
    ] as const) {
      const s = await openSession({ options, heard: [heard] });
      s.answer('a1');
      const utt = await s.playing(800);
      sendMic(s.c, speechMs, true);
      sendMic(s.c, 400, false);
      await until(() => framesOf(s.page, 'resume').length === 1, 8000, `resume after "${heard}"`);
      expect(framesOf(s.page, 'pause')).toEqual([{ type: 'pause', utt }]);
      expect(framesOf(s.page, 'resume')).toEqual([{ type: 'resume', utt }]);
      expect(framesOf(s.page, 'interrupted')).toEqual([]);
      expect(s.got.some((f) => f.type === 'interrupted')).toBe(false);
      // The answer goes on and ends whole.
      s.json({ type: 'response.end' });
      await until(() => finals(s.page).some((f) => f.utt === utt), 8000, 'the whole answer');
      expect(finals(s.page).find((f) => f.utt === utt)).toEqual({ type: 'assistant', utt, text: WORDS, final: true });
      await s.done();
    }
  });

  it('allow_interruptions off: speech over the answer neither holds nor stops it, and is not transcribed', async () => {
    const s = await openSession({ options: { allowInterruptions: false }, heard: ['please stop there'] });
    s.answer('a1');
    const utt = await s.playing(800);
    sendMic(s.c, 600, true);
    sendMic(s.c, 400, false);
    await sleep(700);
    expect(framesOf(s.page, 'pause')).toEqual([]);
    expect(framesOf(s.page, 'interrupted')).toEqual([]);
    expect(s.got.some((f) => f.type === 'interrupted' || f.type === 'transcript')).toBe(false);
    s.json({ type: 'response.end' });
    await until(() => finals(s.page).some((f) => f.utt === utt));
    expect(finals(s.page).find((f) => f.utt === utt)!.interrupted).toBeUndefined();
    await s.done();
  });
});
