import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { TURN_DEFAULTS, type TurnOptions } from '../listening/options.js';
import type { VadStream } from '../listening/vad.js';
import type { AgentJoiner } from './agent-bridge.js';
import { scriptedTts } from '../test/scripted-tts.js';
import type { SttEngine } from '../providers/stt/types.js';
import { connectExternalAgent } from './external-agent.js';
import type { RealtimeEvent } from '../providers/realtime/types.js';
import { until } from '../test/until.js';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The agent's end (a client) and the worker's end (the server side, as the bridge hands it over). */
async function pair() {
  const n = accepted.length;
  const agent = new WebSocket(url);
  const frames: Record<string, unknown>[] = [];
  let mic = 0;
  agent.on('message', (d, isBinary) => (isBinary ? mic++ : frames.push(JSON.parse(String(d)) as Record<string, unknown>)));
  await new Promise((r) => agent.once('open', r));
  await until(() => accepted.length > n);
  return { agent, worker: accepted[n]!, frames, mic: () => mic };
}

const levelVad: VadStream = {
  probability: async (w) => (w.reduce((m, x) => Math.max(m, Math.abs(x)), 0) > 0.05 ? 0.95 : 0.02),
  reset: () => undefined,
};
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
const options: TurnOptions = { ...TURN_DEFAULTS, minSilenceMs: 160, minEndpointingMs: 100, echoGuardMs: 0, earlyTranscriptMs: 100 };
const tone = (ms: number) => Int16Array.from({ length: ms * 16 }, (_, i) => Math.round(8000 * Math.sin(i / 3)));

describe('an external agent as a realtime connection', () => {
  it('transcripts by the worker (hello transcripts: true): the visitor’s words go to the agent and into the session', async () => {
    const { agent, worker, frames, mic } = await pair();
    const joiner: AgentJoiner = {
      join: async () => ({ socket: worker, sampleRate: 16_000, sessionId: 's1', transcripts: true }),
      listening: () => ({ stt: scriptedStt(['what time is it']), vad: levelVad, options }),
    };
    const events: RealtimeEvent[] = [];
    const conn = await connectExternalAgent(joiner, (ev) => events.push(ev), new AbortController().signal);
    const speech = [...Array.from({ length: 30 }, () => tone(20)), ...Array.from({ length: 40 }, () => new Int16Array(320))];
    for (const pcm of speech) {
      conn.appendAudio(pcm);
      await sleep(2);
    }
    await until(() => frames.some((f) => f.type === 'transcript' && f.final === true));
    expect(frames.find((f) => f.type === 'transcript' && f.final === true)).toEqual({ type: 'transcript', text: 'what time is it', final: true });
    expect(events.filter((e) => e.type === 'user-item')).toHaveLength(1);
    expect(events.find((e) => e.type === 'user-transcript' && e.final)).toMatchObject({ text: 'what time is it' });
    await until(() => mic() === speech.length);
    conn.close();
    agent.close();
  });

  it('barge-in by the worker’s listening: over what the visitor hears (avatarHeard) speech pauses, words interrupt; after the avatar stops, speech is a turn again', async () => {
    const { agent, worker, frames } = await pair();
    const joiner: AgentJoiner = {
      join: async () => ({ socket: worker, sampleRate: 16_000, sessionId: 's3', transcripts: true }),
      listening: () => ({ stt: scriptedStt(['hold on', 'next question']), vad: levelVad, options: { ...options, minInterruptionMs: 200 } }),
    };
    const events: RealtimeEvent[] = [];
    const conn = await connectExternalAgent(joiner, (ev) => events.push(ev), new AbortController().signal);
    const push = async (pcm: Int16Array[]) => {
      for (const p of pcm) {
        conn.appendAudio(p);
        await sleep(2);
      }
    };
    const speech = (ms: number) => [...Array.from({ length: ms / 20 }, () => tone(20)), ...Array.from({ length: 20 }, () => new Int16Array(320))];
    conn.avatarHeard!(7, 'the ferry leaves at nine');
    // 600 ms: longer than a backchannel, so the avatar stays paused for the recogniser's words (a
    // shorter sound resumes it before they come: ADR 104).
    await push(speech(600));
    await until(() => events.some((e) => e.type === 'speech-started'));
    const barge = events.filter((e) => e.type.startsWith('speech-'));
    expect(barge).toEqual([{ type: 'speech-paused', utt: 7 }, { type: 'speech-started' }]);
    // The session stops the avatar: nothing is heard any more, the next speech is an ordinary turn.
    conn.avatarHeard!(null, '');
    events.length = 0;
    await push(speech(400));
    await until(() => events.some((e) => e.type === 'user-transcript' && e.final && e.text === 'next question'));
    expect(events.some((e) => e.type.startsWith('speech-'))).toBe(false);
    expect(frames.filter((f) => f.type === 'transcript' && f.final === true).map((f) => f.text)).toEqual(['hold on', 'next question']);
    conn.close();
    agent.close();
  });

  it('speak: the avatar’s voice says it as one answer; an interruption stops it and drops what waits', async () => {
    const { agent, worker, frames } = await pair();
    const tts = scriptedTts({ sampleRate: 22_050, chunks: 5, chunkDelayMs: 40 });
    const joiner: AgentJoiner = { join: async () => ({ socket: worker, sampleRate: 16_000, sessionId: 's2', transcripts: false }), voice: () => tts };
    const events: RealtimeEvent[] = [];
    const conn = await connectExternalAgent(joiner, (ev) => events.push(ev), new AbortController().signal);
    agent.send(JSON.stringify({ type: 'speak', text: 'First sentence.' }));
    await until(() => events.some((e) => e.type === 'response-done'));
    const first = events.find((e) => e.type === 'response-start') as Extract<RealtimeEvent, { type: 'response-start' }>;
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta)).toEqual(['First sentence.']);
    const samples = events.filter((e) => e.type === 'audio').reduce((n, e) => n + (e as { pcm: Int16Array }).pcm.length, 0);
    expect(samples).toBeGreaterThan(0);
    expect(events.find((e) => e.type === 'response-done')).toMatchObject({ responseId: first.responseId, status: 'completed' });

    events.length = 0;
    agent.send(JSON.stringify({ type: 'speak', text: 'A long second sentence that will be cut.' }));
    agent.send(JSON.stringify({ type: 'speak', text: 'Never said.' }));
    await until(() => events.some((e) => e.type === 'audio'));
    const second = events.find((e) => e.type === 'response-start') as Extract<RealtimeEvent, { type: 'response-start' }>;
    conn.truncate(second.responseId, 100);
    await until(() => events.some((e) => e.type === 'response-done'));
    expect(events.find((e) => e.type === 'response-done')).toMatchObject({ status: 'cancelled' });
    await until(() => frames.some((f) => f.type === 'interrupted'));
    expect(frames.find((f) => f.type === 'interrupted')).toEqual({ type: 'interrupted', responseId: second.responseId, heardMs: 100 });
    await sleep(400);
    expect(tts.calls.map((c) => c.text)).toEqual(['First sentence.', 'A long second sentence that will be cut.']);
    expect(tts.calls[1]!.abortedAt).not.toBeNull();
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta)).toEqual(['A long second sentence that will be cut.']);
    conn.close();
    agent.close();
  });
});
