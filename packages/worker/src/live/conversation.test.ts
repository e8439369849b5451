import { describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, LiveProtocol, readAudioFrame, type TLiveCode, type TWorkerFrame } from '@persona/contract';
import { bytesToSamples, concatSamples } from '../core/audio.js';
import { ProviderError } from '../core/errors.js';
import type { Brain } from '../brains/types.js';
import { sessionConfig } from '../test/brain-deps.js';
import { loadWorkerConfig } from '../config.js';
import { createSpeechPipeline } from '../speech/pipeline.js';
import { scriptedTts } from '../test/scripted-tts.js';
import { Conversation, type PageSocket } from './conversation.js';
import { until } from '../test/until.js';

function fakeSocket() {
  const frames: TWorkerFrame[] = [];
  const audio: Uint8Array[] = [];
  let closed: number | null = null;
  const socket: PageSocket & { frames: TWorkerFrame[]; audio: Uint8Array[]; closed: () => number | null } = {
    frames,
    audio,
    closed: () => closed,
    send: (data) => frames.push(JSON.parse(data) as TWorkerFrame),
    sendBinary: (data) => audio.push(data),
    close: (code) => (closed = code),
    get isOpen() {
      return closed === null;
    },
  };
  return socket;
}

function portal(answer: { echo: boolean; end: TLiveCode | null } = { echo: false, end: null }) {
  const calls = { heartbeats: 0, histories: [] as number[], ends: [] as string[] };
  return {
    calls,
    answer,
    link: {
      heartbeat: async () => {
        calls.heartbeats++;
        return answer;
      },
      history: async (h: unknown[]) => void calls.histories.push(h.length),
      end: async (code: TLiveCode) => void calls.ends.push(code),
    },
  };
}

const finals = (s: { frames: TWorkerFrame[] }) => s.frames.filter((f) => f.type === 'assistant' && f.final).map((f) => (f as { text: string }).text);
const log = { info() {}, warn() {}, error() {} };

describe('a conversation on the worker', () => {
  it('says the wake-up message, answers turns in order, reports history and ends on bye', async () => {
    const slow: Brain = {
      kind: 'test',
      async *reply(turn) {
        await new Promise((r) => setTimeout(r, turn.text === 'first' ? 50 : 0));
        yield { type: 'text', delta: `${turn.text}!` };
        yield { type: 'text', delta: ` (${turn.history.length})` };
      },
    };
    const p = portal();
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }), brain: slow, portal: p.link, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', id: 'a', text: 'first' }));
    c.onMessage(JSON.stringify({ type: 'text', id: 'b', text: 'second' }));
    await until(() => finals(s).length === 3);
    expect(finals(s)).toEqual(['Hello!', 'first! (1)', 'second! (3)']);
    expect(p.calls.histories).toEqual([3, 5]);
    c.onMessage(JSON.stringify({ type: 'bye' }));
    await until(() => p.calls.ends.length === 1);
    expect(p.calls.ends).toEqual([LiveCode.hangUp]);
    expect(s.closed()).toBe(LiveProtocol.close.ended);
    expect(s.frames.at(-1)).toEqual({ type: 'bye', code: LiveCode.hangUp, message: LiveMessages['hang-up'] });
  });

  it('asks the brain for one summary per session, at its end, whatever the page sends (ADR 099: the owner pays for one)', async () => {
    let asked = 0;
    const summarizing: Brain = {
      kind: 'test',
      async *reply(turn) {
        yield { type: 'text', delta: `${turn.text}!` };
      },
      summarize: async () => `Summary ${++asked}`,
    };
    const ends: (string | null)[] = [];
    const p = portal();
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }), brain: summarizing, portal: { ...p.link, end: async (_code, summary) => void ends.push(summary) }, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', id: 'a', text: 'hello' }));
    await until(() => finals(s).length === 2);
    expect(asked).toBe(0);
    // A page that says goodbye again and again, then goes: still one summary, sent with the one end.
    for (let i = 0; i < 5; i++) c.onMessage(JSON.stringify({ type: 'bye' }));
    await until(() => ends.length === 1);
    void c.finish(LiveCode.hangUp);
    await c.finish(LiveCode.hangUp);
    expect(asked).toBe(1);
    expect(ends).toEqual(['Summary 1']);
  });

  it("reports a failed function to the portal (the function.failed webhook), not a function that worked", async () => {
    const tooling: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'tool', name: 'get_weather', status: 'started' };
        yield { type: 'tool', name: 'get_weather', status: 'error', error: 'KeyError: city' };
        yield { type: 'tool', name: 'opening_hours', status: 'ok' };
        yield { type: 'text', delta: 'Sorry.' };
      },
    };
    const failures: [string, string | null][] = [];
    const p = portal();
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain: tooling, portal: { ...p.link, functionFailed: async (name, error) => void failures.push([name, error]) }, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', id: 'a', text: 'weather?' }));
    await until(() => finals(s).length === 1);
    expect(failures).toEqual([['get_weather', 'KeyError: city']]);
    expect(s.frames.filter((f) => f.type === 'tool')).toEqual([
      { type: 'tool', name: 'get_weather', status: 'started' },
      { type: 'tool', name: 'get_weather', status: 'error' },
      { type: 'tool', name: 'opening_hours', status: 'ok' },
    ]);
    c.onMessage(JSON.stringify({ type: 'bye' }));
    await until(() => p.calls.ends.length === 1);
  });

  it('sends the session’s provider failures, by provider and phase, with its end (ADR 099: analytics)', async () => {
    const failing: Brain = {
      kind: 'test',
      // eslint-disable-next-line require-yield
      async *reply() {
        throw new ProviderError('openai-compatible', 'HTTP 503', 503);
      },
      summarize: async () => {
        throw new ProviderError('openai-compatible', 'HTTP 429', 429);
      },
    };
    const reported: unknown[] = [];
    const p = portal();
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain: failing, portal: { ...p.link, end: async (_code, _summary, _turns, errors) => void reported.push(errors) }, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', id: 'a', text: 'one' }));
    await until(() => finals(s).length === 1);
    c.onMessage(JSON.stringify({ type: 'text', id: 'b', text: 'two' }));
    await until(() => finals(s).length === 2);
    c.onMessage(JSON.stringify({ type: 'bye' }));
    await until(() => reported.length === 1);
    expect(reported[0]).toEqual([
      { provider: 'openai-compatible', phase: 'reply', count: 2 },
      { provider: 'openai-compatible', phase: 'summary', count: 1 },
    ]);
  });

  it('a provider failure gives the apology and a non-fatal error; bad frames are answered, not fatal', async () => {
    const failing: Brain = {
      kind: 'test',
      // eslint-disable-next-line require-yield
      async *reply() {
        throw new ProviderError('openai-compatible', 'HTTP 503', 503);
      },
    };
    const lines: { msg: string; data?: object }[] = [];
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain: failing, portal: portal().link, log: { ...log, warn: (msg, data) => lines.push({ msg, data }) } });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage('{not json');
    c.onMessage(JSON.stringify({ type: 'text', text: 'x'.repeat(3000) }));
    c.onMessage(JSON.stringify({ type: 'text', text: 'hello' }));
    await until(() => finals(s).length === 1);
    expect(finals(s)).toEqual([LiveMessages['provider-error']]);
    expect(s.frames.filter((f) => f.type === 'error').map((f) => (f as { code: string }).code)).toEqual([LiveCode.badFrame, LiveCode.badFrame, LiveCode.providerError]);
    expect(lines[0]?.data).toMatchObject({ avatarId: 42, status: 503, provider: 'openai-compatible' });
    expect(s.closed()).toBeNull();
    await c.finish(LiveCode.sessionEnded);
  });

  it('idle timeout ends it; the heartbeat can switch to echo-back or end it', async () => {
    const p = portal();
    const idle = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { idleTimeoutSeconds: 1 } }), brain: null, portal: p.link, log });
    const s = fakeSocket();
    idle.attach(s);
    await until(() => s.closed() !== null, 3000);
    expect(p.calls.ends).toEqual([LiveCode.idleTimeout]);

    const q = portal();
    const llm: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: 'model answer' };
      },
    };
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }), brain: llm, portal: q.link, log, heartbeatMs: 30 });
    const t = fakeSocket();
    c.attach(t);
    q.answer.echo = true;
    await until(() => t.frames.some((f) => f.type === 'notice'));
    c.onMessage(JSON.stringify({ type: 'text', text: 'repeat me' }));
    await until(() => finals(t).includes('repeat me'));
    q.answer.end = LiveCode.billingRefused;
    await until(() => t.closed() !== null);
    expect(t.frames.at(-1)).toMatchObject({ type: 'bye', code: LiveCode.billingRefused });
    expect(q.calls.ends).toEqual([]); // the portal ended it itself
  });
});

describe('the avatar speaks (issue 13)', () => {
  const utterances = (s: { frames: TWorkerFrame[] }) => s.frames.filter((f) => f.type === 'utterance').map((f) => `${(f as { phase: string }).phase} ${(f as { utt: number }).utt}`);

  it('says the wake-up message and each answer while it streams: audio frames, visemes, utterance start and end', async () => {
    const tts = scriptedTts({ sampleRate: 16000 });
    const speech = createSpeechPipeline({ tts });
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: 'First sentence here. ' };
        await new Promise((r) => setTimeout(r, 30));
        yield { type: 'text', delta: 'And a second one.' };
      },
    };
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }), brain, speech, portal: portal().link, log });
    const s = fakeSocket();
    c.attach(s);
    expect(s.frames[0]).toMatchObject({ type: 'ready', audioSampleRate: 16000 });
    await until(() => utterances(s).includes('end 1'));
    c.onMessage(JSON.stringify({ type: 'text', text: 'hi' }));
    await until(() => utterances(s).includes('end 2'));
    expect(utterances(s)).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    // The answer's first piece was asked for before the brain had finished (spoken while generated).
    expect(tts.calls.map((call) => call.text)).toEqual(['Hello!', 'First sentence here.', 'And a second one.']);
    expect(s.audio.length).toBeGreaterThan(3);
    // 8-byte header: kind (avatar), flags, then the utterance in bytes 2-3.
    const utts = new Set(s.audio.map((frame) => new DataView(frame.buffer, frame.byteOffset).getUint16(2, true)));
    expect([...utts].sort()).toEqual([1, 2]);
    expect(s.frames.some((f) => f.type === 'visemes')).toBe(true);
    // The next turn waits for the speech: 'listening' comes after the utterance's end.
    const states = s.frames.map((f, i) => (f.type === 'state' ? `${i}:${(f as { state: string }).state}` : null)).filter(Boolean);
    const endAt = s.frames.findIndex((f) => f.type === 'utterance' && (f as { phase: string; utt: number }).phase === 'end' && (f as { utt: number }).utt === 2);
    expect(Number(String(states.at(-1)).split(':')[0])).toBeGreaterThan(endAt);
    await c.finish(LiveCode.sessionEnded);
  });

  it('avatar tags in an answer are done, never said, shown or remembered; each action comes timed with the voice', async () => {
    const tts = scriptedTts({ sampleRate: 16000 });
    const speech = createSpeechPipeline({ tts });
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: "<trl-mood id='happy' /> Sure thing. <trl-ani" };
        yield { type: 'text', delta: "m type='aux' id='nod' />It opens at nine. <trl-config speechSpeed='20' />" };
      },
    };
    const p = portal();
    const histories: { text: string }[][] = [];
    const c = new Conversation({
      config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: "<trl-gesture id='wave'/>Hello!" } }),
      brain,
      speech,
      portal: { ...p.link, history: async (h: { text: string }[]) => void histories.push(h.map((e) => ({ text: e.text }))) },
      log,
    });
    const s = fakeSocket();
    c.attach(s);
    await until(() => utterances(s).includes('end 1'));
    c.onMessage(JSON.stringify({ type: 'text', text: 'when?' }));
    await until(() => utterances(s).includes('end 2'));
    expect(finals(s)).toEqual(['Hello!', 'Sure thing. It opens at nine. ']);
    const deltas = s.frames.filter((f) => f.type === 'assistant' && !f.final).map((f) => (f as { delta: string }).delta).join('');
    expect(deltas).not.toContain('trl');
    expect(tts.calls.map((call) => call.text)).toEqual(['Hello!', 'Sure thing.', 'It opens at nine.']);
    expect(histories.at(-1)!.map((h) => h.text).join(' ')).not.toContain('<');
    const actions = s.frames.filter((f): f is Extract<TWorkerFrame, { type: 'action' }> => f.type === 'action');
    expect(actions.map((a) => [a.utt, a.action.kind, a.source])).toEqual([
      [1, 'gesture', 'tag'],
      [2, 'mood', 'tag'],
      [2, 'gesture', 'tag'],
      [2, 'tag', 'tag'],
    ]);
    expect(actions.every((a) => typeof a.t === 'number')).toBe(true);
    // The nod comes with "It opens", after "Sure thing."
    expect(actions[2]!.t!).toBeGreaterThan(actions[1]!.t!);
    await c.finish(LiveCode.sessionEnded);
  });

  it('a <trl-break> in an answer: silence in the audio the page plays; interrupted in it, the answer stops and keeps what was said before it', async () => {
    const tts = scriptedTts({ sampleRate: 16000 });
    const speech = createSpeechPipeline({ tts });
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: 'Let me think. <trl-break duration="3" /> Ah yes, it opens at nine.' };
      },
    };
    const histories: { text: string; interrupted?: boolean; detail?: unknown }[][] = [];
    const p = portal();
    const c = new Conversation({
      config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }),
      brain,
      speech,
      portal: { ...p.link, history: async (h: { text: string; interrupted?: boolean; detail?: unknown }[]) => void histories.push(h.map((e) => ({ text: e.text, interrupted: e.interrupted, detail: e.detail }))) },
      log,
    });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', text: 'when?' }));
    await until(() => utterances(s).includes('end 1'));
    expect(tts.calls.map((call) => call.text)).toEqual(['Let me think.', 'Ah yes, it opens at nine.']);
    // The page is sent 3 s of silence between the two.
    const pcm = concatSamples(s.audio.map((frame) => readAudioFrame(frame)!).filter((f) => f.header.utterance === 1).map((f) => bytesToSamples(f.pcm)));
    let run = 0;
    let longest = { from: 0, samples: 0 };
    for (let i = 0; i < pcm.length; i++) {
      run = pcm[i] === 0 ? run + 1 : 0;
      if (run > longest.samples) longest = { from: i - run + 1, samples: run };
    }
    expect(longest.samples / 16).toBeGreaterThanOrEqual(3000);
    const words = s.frames.filter((f) => f.type === 'words').flatMap((f) => (f as { items: { t: number; w: string }[] }).items);
    // (a word's tone starts at a zero sample: one sample of slack)
    expect(words.find((w) => w.w === 'Ah')!.t).toBeGreaterThanOrEqual((longest.from + longest.samples - 1) / 16);
    // The visitor has heard 1 s of the pause when they interrupt.
    const inPause = Math.round(longest.from / 16 + 1000);
    c.onMessage(JSON.stringify({ type: 'playback', utt: 1, state: 'progress', playedMs: inPause }));
    // The page stops playback (its own interrupt: it knows what it played).
    c.onMessage(JSON.stringify({ type: 'interrupt' }));
    await until(() => histories.some((h) => h.some((e) => e.text === 'Let me think.')));
    const kept = histories.at(-1)!.find((e) => e.text === 'Let me think.')!;
    expect(kept.interrupted).toBe(true);
    const heardMs = (kept.detail as { heardMs: number }).heardMs;
    expect(heardMs).toBeGreaterThanOrEqual(inPause);
    expect(heardMs).toBeLessThan(inPause + 1000);
    expect(kept.detail).toMatchObject({ fullChars: 'Let me think. Ah yes, it opens at nine.'.length });
    // Nothing more of it goes out.
    const sent = s.audio.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(s.audio.length).toBe(sent);
    await c.finish(LiveCode.sessionEnded);
  });

  it('<trl-config speechSpeed> holds for the rest of the session, also from a host’s line of tags only', async () => {
    const tts = scriptedTts({ sampleRate: 16000 });
    const speech = createSpeechPipeline({ tts });
    const answers = ["Sure. <trl-config speechSpeed='20' /> I will speak quicker.", 'Still quicker.', 'Slower now.'];
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: answers.shift()! };
      },
    };
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain, speech, portal: portal().link, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', text: 'faster please' }));
    await until(() => utterances(s).includes('end 1'));
    c.onMessage(JSON.stringify({ type: 'text', text: 'and now?' }));
    await until(() => utterances(s).includes('end 2'));
    // The host page's sendMessageToAvatar with only a tag: nothing said, the speed set.
    c.onMessage(JSON.stringify({ type: 'text', text: "<trl-config speechSpeed='-25' />", speak: true }));
    await until(() => s.frames.filter((f) => f.type === 'action').length === 2);
    c.onMessage(JSON.stringify({ type: 'text', text: 'ok' }));
    await until(() => utterances(s).includes('end 4'));
    expect(tts.calls.map((call) => [call.text, call.rate])).toEqual([
      ['Sure.', undefined],
      ['I will speak quicker.', 1.2],
      ['Still quicker.', 1.2],
      ['Slower now.', 0.75],
    ]);
    await c.finish(LiveCode.sessionEnded);
  });

  it('without tags or voice, a mood cue from the answer’s tone is sent at once', async () => {
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: 'Unfortunately the café is closed today.' };
      },
    };
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain, portal: portal().link, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', text: 'coffee?' }));
    await until(() => finals(s).length === 1);
    expect(s.frames.filter((f) => f.type === 'action')).toEqual([{ type: 'action', utt: 1, action: { kind: 'mood', mood: 'concerned', intensity: 0.45, durationMs: 5000 }, source: 'cue' }]);
    await c.finish(LiveCode.sessionEnded);
  });

  it('sends no audio with the speaker off, and an interruption stops the voice at once', async () => {
    const tts = scriptedTts({ delayMs: 40, chunks: 4, chunkDelayMs: 40 });
    const speech = createSpeechPipeline({ tts });
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        yield { type: 'text', delta: 'A long answer that goes on. It has several sentences. Here is one more. And another.' };
      },
    };
    const muted = new Conversation({ config: sessionConfig({ kind: 'echo' }), brain, speech, speakerOn: false, portal: portal().link, log });
    const m = fakeSocket();
    muted.attach(m);
    muted.onMessage(JSON.stringify({ type: 'text', text: 'hi' }));
    await until(() => finals(m).length === 2);
    expect(m.audio).toEqual([]);
    expect(tts.calls).toEqual([]);
    await muted.finish(LiveCode.sessionEnded);

    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain, speech, portal: portal().link, log });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', text: 'hi' }));
    await until(() => s.audio.length > 0);
    c.onMessage(JSON.stringify({ type: 'interrupt' }));
    await until(() => s.frames.filter((f) => f.type === 'state').at(-1)?.state === 'listening');
    const heard = s.audio.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(s.audio.length).toBe(heard);
    expect(tts.calls.some((call) => call.abortedAt !== null)).toBe(true);
    await c.finish(LiveCode.sessionEnded);
  });
});

describe('worker configuration', () => {
  const env = { WORKER_SECRET: 's'.repeat(20) };
  it('reads --listen and --capacity (flags before the environment), with defaults', () => {
    expect(loadWorkerConfig(env, { server: 'https://portal.example' })).toMatchObject({ listen: { host: '0.0.0.0', port: 8090 }, capacity: 200 });
    expect(loadWorkerConfig({ ...env, WORKER_LISTEN: '9000', WORKER_CAPACITY: '5' }, { server: 'https://p', listen: '127.0.0.1:0' })).toMatchObject({ listen: { host: '127.0.0.1', port: 0 }, capacity: 5 });
    expect(() => loadWorkerConfig(env, { server: 'https://p', listen: 'x:99999' })).toThrow('--listen port');
    expect(() => loadWorkerConfig(env, { server: 'https://p', capacity: '0' })).toThrow('--capacity must be at least 1');
  });
});
