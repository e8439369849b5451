import { afterAll, describe, expect, it, vi } from 'vitest';
import { loudSpans } from '../test/tts-helpers.js';
import { scriptedTts, type ScriptedTtsOptions } from '../test/scripted-tts.js';
import { FAKE_LEAD_MS } from '../test/fake-tts.js';
import { bytesToSamples, concatSamples } from '../core/audio.js';
import { createOfflineTts, createOfflineVoice } from './offline-voice.js';
import { LiveProtocol, ZWorkerFrame, readAudioFrame } from '@persona/contract';
import { createSpeechPipeline, speechFrame, type SpeechEvent, type SpeechPipelineOptions, type SpeechTurn } from './pipeline.js';
import type { VisemeItem, WordItem } from '../core/visemes.js';

const offline = createOfflineVoice({ threads: 1 });
afterAll(() => offline.close());

interface Run {
  events: (SpeechEvent & { at: number })[];
  turn: SpeechTurn;
}

function start(tts: ScriptedTtsOptions | SpeechPipelineOptions['tts'], opts: Partial<SpeechPipelineOptions> = {}, utt = 7): Run & { tts: ReturnType<typeof scriptedTts> | SpeechPipelineOptions['tts'] } {
  const engine = 'synthesize' in tts ? tts : scriptedTts(tts);
  const pipeline = createSpeechPipeline({ tts: engine, ...opts });
  const events: Run['events'] = [];
  const turn = pipeline.startTurn({ utt, onEvent: (ev) => events.push({ ...ev, at: performance.now() }) });
  return { events, turn, tts: engine };
}

/** Streams text into a turn token by token, as a model would. */
async function stream(turn: SpeechTurn, text: string, tokenMs = 0) {
  for (const tok of text.match(/\S+\s*/g) ?? []) {
    turn.push(tok);
    if (tokenMs) await new Promise((r) => setTimeout(r, tokenMs));
  }
  turn.end();
}

const audioOf = (events: SpeechEvent[]) => concatSamples(events.filter((e): e is Extract<SpeechEvent, { type: 'audio' }> => e.type === 'audio').map((e) => bytesToSamples(e.pcm)));
const wordsOf = (events: SpeechEvent[]) => events.flatMap((e) => (e.type === 'words' ? e.items : [])) as WordItem[];
const actionsOf = (events: SpeechEvent[]) => events.filter((e): e is Extract<SpeechEvent, { type: 'action' }> => e.type === 'action');
const visemesOf = (events: SpeechEvent[]) => events.flatMap((e) => (e.type === 'visemes' ? e.items : [])) as VisemeItem[];

const THREE = 'The museum opens at nine. It closes at five in the evening. Tickets are sold at the door.';

describe('speech pipeline: text stream → pieces → speech → utterance events', () => {
  it('one utterance: start, audio frames in sequence, timings, an empty last frame, end', async () => {
    const { events, turn } = start({ chunks: 3 });
    await stream(turn, THREE);
    const metrics = await turn.done;
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('utterance');
    expect(events[0]).toMatchObject({ utt: 7, phase: 'start' });
    expect(events[events.length - 1]).toMatchObject({ type: 'utterance', utt: 7, phase: 'end' });
    const audio = events.filter((e) => e.type === 'audio') as Extract<SpeechEvent, { type: 'audio' }>[];
    expect(audio.map((a) => a.seq)).toEqual(audio.map((_, k) => k));
    expect(audio.every((a) => a.utt === 7)).toBe(true);
    expect(audio.slice(0, -1).every((a) => !a.last && a.pcm.length > 0 && a.pcm.length <= 3200)).toBe(true);
    expect(audio[audio.length - 1]).toMatchObject({ last: true, pcm: new Uint8Array(0) });
    expect(types.indexOf('audio')).toBeLessThan(types.lastIndexOf('utterance'));
    expect(metrics).toMatchObject({ pieces: 3, interrupted: false, error: null });
    expect(metrics.audioMs).toBeCloseTo((audioOf(events).length * 1000) / 16000, 0);
  });

  it('words and visemes are timed from the utterance’s first sample: they sit on the sound, piece after piece', async () => {
    const { events, turn } = start({ chunks: 4 });
    await stream(turn, THREE);
    await turn.done;
    const audio = audioOf(events);
    const spans = loudSpans(audio, 16000);
    const words = wordsOf(events);
    expect(words.map((w) => w.w)).toEqual(THREE.replace(/[.]/g, '').split(' '));
    expect(spans).toHaveLength(words.length);
    words.forEach((w, k) => {
      expect(Math.abs(w.t - spans[k]!.startMs)).toBeLessThan(12);
      expect(Math.abs(w.t + w.d - spans[k]!.endMs)).toBeLessThan(12);
    });
    for (const v of visemesOf(events).filter((x) => x.v !== 'sil')) expect(spans.some((s) => Math.abs(v.t - s.startMs) < 12)).toBe(true);
  });

  it('cuts the synthesizer’s leading silence and caps the pause between pieces', async () => {
    const { events, turn } = start({});
    await stream(turn, THREE);
    await turn.done;
    const spans = loudSpans(audioOf(events), 16000);
    // The fake starts every piece with 150 ms of silence: at most the 30 ms pad is left.
    expect(FAKE_LEAD_MS).toBe(150);
    expect(spans[0]!.startMs).toBeLessThan(40);
    // Between sentences: the kept tail (≤ 260 ms) + the next piece's pad, not 300 + 150 ms.
    const gaps = spans.slice(1).map((s, k) => s.startMs - spans[k]!.endMs);
    expect(Math.max(...gaps)).toBeLessThan(260 + 30 + 15);
    expect(Math.max(...gaps)).toBeGreaterThan(200);
  });

  it('pieces come out in order even when a later one is synthesised first', async () => {
    const { events, turn, tts } = start({ delayMs: (text) => (text.startsWith('The museum') ? 250 : 10) });
    await stream(turn, THREE);
    await turn.done;
    const calls = (tts as ReturnType<typeof scriptedTts>).calls;
    expect(calls[1]!.finishedAt!).toBeLessThan(calls[0]!.finishedAt!);
    expect(wordsOf(events).map((w) => w.w).join(' ')).toBe(THREE.replace(/[.]/g, ''));
  });

  it('synthesises the next piece while the current one is still streaming, never more than `lookahead` at once', async () => {
    const { turn, tts } = start({ chunks: 4, chunkDelayMs: 60 }, { lookahead: 2 });
    turn.push('First sentence here. Second sentence here. Third sentence here. Fourth sentence here. ');
    turn.end();
    await turn.done;
    const calls = (tts as ReturnType<typeof scriptedTts>).calls;
    expect(calls).toHaveLength(4);
    // Piece 2 was asked for before piece 1 finished; piece 3 only once piece 1 was done.
    expect(calls[1]!.at).toBeLessThan(calls[0]!.finishedAt!);
    expect(calls[2]!.at).toBeGreaterThanOrEqual(calls[0]!.finishedAt!);
    expect(calls[3]!.at).toBeGreaterThanOrEqual(calls[1]!.finishedAt!);
    expect(calls.map((c) => c.previousText ?? '')).toEqual(['', 'First sentence here.', 'Second sentence here.', 'Third sentence here.']);
  });

  it('interrupting stops every request at once and emits nothing more', async () => {
    const { events, turn, tts } = start({ chunks: 6, chunkDelayMs: 80 });
    turn.push(THREE);
    turn.end();
    while (!events.some((e) => e.type === 'audio')) await new Promise((r) => setTimeout(r, 5));
    turn.cancel();
    // "At once": every running request was aborted before cancel() returned (no timer involved).
    const cancelReturnedAt = performance.now();
    const count = events.length;
    const metrics = await turn.done;
    await new Promise((r) => setTimeout(r, 200));
    expect(events.length).toBe(count);
    expect(events.some((e) => e.type === 'utterance' && e.phase === 'end')).toBe(false);
    expect(metrics.interrupted).toBe(true);
    const calls = (tts as ReturnType<typeof scriptedTts>).calls;
    const running = calls.filter((c) => c.finishedAt === null);
    expect(running.length).toBeGreaterThan(0);
    for (const c of running) {
      expect(c.abortedAt).not.toBeNull();
      expect(c.abortedAt!).toBeLessThanOrEqual(cancelReturnedAt);
    }
    // Later text is ignored.
    turn.push('More text.');
    expect(events.length).toBe(count);
  });

  it('a session’s abort signal interrupts too', async () => {
    const ac = new AbortController();
    const pipeline = createSpeechPipeline({ tts: scriptedTts({ delayMs: 100 }) });
    const events: SpeechEvent[] = [];
    const turn = pipeline.startTurn({ utt: 1, onEvent: (e) => events.push(e), signal: ac.signal });
    turn.push('Hello there.');
    ac.abort();
    expect((await turn.done).interrupted).toBe(true);
    expect(events).toEqual([]);
  });

  it('a provider failure: what was said stays, one error event, the rest is not spoken, the utterance ends', async () => {
    const { events, turn, tts } = start({ failOn: (t) => t.startsWith('It closes') });
    await stream(turn, THREE);
    const metrics = await turn.done;
    const errors = events.filter((e) => e.type === 'error') as Extract<SpeechEvent, { type: 'error' }>[];
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error.provider).toBe('scripted');
    expect(errors[0]!.error.status).toBe(500);
    expect(wordsOf(events).map((w) => w.w)).toEqual(['The', 'museum', 'opens', 'at', 'nine']);
    expect(events[events.length - 1]).toMatchObject({ type: 'utterance', phase: 'end' });
    expect(metrics.error).toContain('refused');
    const calls = (tts as ReturnType<typeof scriptedTts>).calls;
    expect(calls.filter((c) => c.text.startsWith('Tickets')).every((c) => c.abortedAt !== null)).toBe(true);
  });

  it('resamples a provider’s rate to the session’s, timings unchanged', async () => {
    const { events, turn } = start({ sampleRate: 24000 }, { sampleRate: 16000 });
    await stream(turn, 'One two three.');
    await turn.done;
    const audio = audioOf(events);
    const spans = loudSpans(audio, 16000);
    const words = wordsOf(events);
    expect(spans).toHaveLength(3);
    words.forEach((w, k) => expect(Math.abs(w.t - spans[k]!.startMs)).toBeLessThan(12));
  });

  it('without provider timings, visemes and word estimates come from the text, scaled to the audio', async () => {
    const { events, turn } = start({ marks: 'none' });
    await stream(turn, 'Good morning everyone.');
    await turn.done;
    const audio = audioOf(events);
    const spans = loudSpans(audio, 16000);
    const visemes = visemesOf(events);
    const spoken = visemes.filter((v) => v.v !== 'sil');
    expect(spoken[0]!.t).toBeCloseTo(spans[0]!.startMs, -1);
    const last = spoken[spoken.length - 1]!;
    expect(last.t + last.d).toBeCloseTo(spans[spans.length - 1]!.endMs, -1);
    expect(visemes[visemes.length - 1]!.v).toBe('sil');
    expect(wordsOf(events).map((w) => w.w)).toEqual(['Good', 'morning', 'everyone']);
  });

  it('measures the time from the first text to the first audio (here: a provider answering after 100 ms)', async () => {
    // On a fake clock: the figure is the provider's 100 ms exactly, whatever else the machine does
    // (on the real clock a loaded machine added its own delay to the bound).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { turn } = start({ delayMs: 100 });
      await stream(turn, 'Hello, world. This is a test.');
      await vi.runAllTimersAsync();
      const m = await turn.done;
      expect(m.firstAudioMs).toBe(100);
      expect(m.synthesisMs[0]).toBe(100);
    } finally {
      vi.useRealTimers();
    }
  });

  it('tells what the visitor heard when playback stopped (for the history of an interrupted answer)', async () => {
    const { events, turn } = start({});
    await stream(turn, THREE);
    await turn.done;
    const words = wordsOf(events);
    expect(turn.heardText(1e9)).toBe(THREE);
    const museum = words.find((w) => w.w === 'closes')!;
    expect(turn.heardText(museum.t + museum.d)).toBe('The museum opens at nine. It closes');
    expect(turn.heardText(0)).toBe('');
  });

  it('an answer with nothing to say gives no utterance at all', async () => {
    const { events, turn } = start({});
    turn.push('😀 ');
    turn.push('https://example.com');
    turn.end();
    expect((await turn.done).pieces).toBe(0);
    expect(events).toEqual([]);
  });

  it('every event becomes a protocol frame the page reads back (binary audio with its header, JSON that validates)', async () => {
    const { events, turn } = start({});
    await stream(turn, 'Hello there. How are you?');
    await turn.done;
    for (const ev of events) {
      const frame = speechFrame(ev);
      if (ev.type === 'audio') {
        const bin = (frame as { binary: Uint8Array }).binary;
        expect(bin.byteLength).toBeLessThanOrEqual(LiveProtocol.maxBinaryFrame);
        const read = readAudioFrame(bin)!;
        expect(read.header).toEqual({ kind: 2, flags: ev.last ? 1 : 0, utterance: 7, seq: ev.seq });
        expect(Array.from(read.pcm)).toEqual(Array.from(ev.pcm));
      } else {
        const json = (frame as { json: unknown }).json;
        expect(ZWorkerFrame.safeParse(JSON.parse(JSON.stringify(json))).success).toBe(true);
        expect(JSON.stringify(json).length).toBeLessThan(LiveProtocol.maxTextFrame);
      }
    }
  });

  it('an action marked in the text is sent at the time of the word after it (before, mid-answer, after the last word)', async () => {
    const { events, turn } = start({ chunks: 3 });
    const nod = { kind: 'gesture', gesture: 'nod' } as const;
    const happy = { kind: 'mood', mood: 'happy' } as const;
    const wave = { kind: 'gesture', gesture: 'wave' } as const;
    turn.mark(happy, 'tag');
    const [first, second] = ['The museum opens at nine. It closes ', 'at five in the evening. Tickets are sold at the door.'];
    turn.push(first!);
    // Mid-sentence, before "at five": the eighth word.
    turn.mark(nod, 'tag');
    turn.push(second!);
    turn.mark(wave, 'cue');
    turn.end();
    await turn.done;
    const words = wordsOf(events);
    const actions = actionsOf(events);
    expect(actions.map((a) => [a.action, a.source])).toEqual([
      [happy, 'tag'],
      [nod, 'tag'],
      [wave, 'cue'],
    ]);
    expect(words[7]!.w).toBe('at');
    expect(actions[0]!.t).toBeLessThanOrEqual(words[0]!.t);
    expect(actions[1]!.t).toBe(Math.round(words[7]!.t));
    const end = events[events.length - 1] as Extract<SpeechEvent, { type: 'utterance'; phase: 'end' }>;
    expect(actions[2]!.t).toBe(Math.round(end.durationMs));
    // Inside the utterance's frames, each before the audio it belongs to is over.
    const types = events.map((e) => e.type);
    expect(types.indexOf('action')).toBeGreaterThan(types.indexOf('utterance'));
    expect(types.lastIndexOf('action')).toBeLessThan(types.lastIndexOf('utterance'));
    for (const a of actions) expect(ZWorkerFrame.safeParse(JSON.parse(JSON.stringify((speechFrame(a) as { json: unknown }).json))).success).toBe(true);
  });

  it('a mark placed back at an earlier offset (a cue read once its sentence ended) is timed at that offset', async () => {
    const { events, turn } = start({ chunks: 2 });
    const text = 'Hello there. Sorry, the cafe is closed today. See you soon.';
    turn.push(text);
    turn.mark({ kind: 'mood', mood: 'concerned' }, 'cue', text.indexOf('Sorry'));
    turn.end();
    await turn.done;
    const words = wordsOf(events);
    const action = events.find((e) => e.type === 'action') as Extract<SpeechEvent, { type: 'action' }>;
    expect(words[2]!.w).toBe('Sorry');
    expect(action.t).toBeLessThanOrEqual(Math.round(words[2]!.t));
    expect(action.t).toBeGreaterThan(words[1]!.t);
  });

  it('a cancelled turn sends no action it had not sent', async () => {
    const { events, turn } = start({ delayMs: 50 });
    turn.push('One sentence here. ');
    turn.mark({ kind: 'gesture', gesture: 'shrug' }, 'tag');
    turn.push('Another one.');
    turn.cancel();
    await turn.done;
    expect(events.some((e) => e.type === 'action')).toBe(false);
  });

  it('speaks a whole text at once (the wake-up message)', async () => {
    const pipeline = createSpeechPipeline({ tts: scriptedTts({}) });
    const events: SpeechEvent[] = [];
    const turn = pipeline.speak('Hello! I am Ava, your guide today.', { utt: 0, onEvent: (e) => events.push(e) });
    await turn.done;
    expect(wordsOf(events).map((w) => w.w)).toEqual(['Hello', 'I', 'am', 'Ava', 'your', 'guide', 'today']);
  });

  it('with the offline voice: trimmed 16 kHz speech, phone-exact visemes, the first audio quickly', async () => {
    await offline.warm();
    const pipeline = createSpeechPipeline({ tts: createOfflineTts(offline) });
    expect(pipeline.sampleRate).toBe(16000);
    const events: SpeechEvent[] = [];
    const turn = pipeline.startTurn({ utt: 3, onEvent: (e) => events.push(e) });
    await stream(turn, 'Welcome to the museum. The first room shows paintings from the north.');
    const m = await turn.done;
    const audio = audioOf(events);
    const spans = loudSpans(audio, 16000, 300);
    // flite's ~160 ms lead is cut to the pad.
    expect(spans[0]!.startMs).toBeLessThan(60);
    const visemes = visemesOf(events).filter((v) => v.v !== 'sil');
    expect(visemes.length).toBeGreaterThan(20);
    expect(visemes[0]!.t).toBeLessThan(80);
    const last = visemes[visemes.length - 1]!;
    expect(Math.abs(last.t + last.d - spans[spans.length - 1]!.endMs)).toBeLessThan(150);
    expect(m.firstAudioMs!).toBeLessThan(2000);
    expect(m.pieces).toBe(2);
  });
});

describe('the voice’s own avatar tags: <trl-break> pauses it, <trl-config speechSpeed> changes its rate (ADR 088)', () => {
  const pause = (duration: string) => ({ kind: 'tag', tag: 'trl-break', attrs: { duration } }) as const;
  const speed = (speechspeed: string) => ({ kind: 'tag', tag: 'trl-config', attrs: { speechspeed } }) as const;
  const nod = { kind: 'gesture', gesture: 'nod' } as const;
  /** The longest run of digital silence (ms) and where it starts (ms). */
  const longestSilence = (samples: Int16Array, rate = 16000) => {
    let best = { startMs: 0, ms: 0 };
    for (let i = 0; i < samples.length; ) {
      if (samples[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < samples.length && samples[j] === 0) j++;
      const ms = ((j - i) * 1000) / rate;
      if (ms > best.ms) best = { startMs: (i * 1000) / rate, ms };
      i = j;
    }
    return best;
  };

  it('a break of 1.0 s mid-sentence: ≥ 1 s of silence between its words, the words, visemes and actions after it that much later', async () => {
    const plain = start({ chunks: 2 });
    await stream(plain.turn, 'The museum opens at nine. It closes at five.');
    await plain.turn.done;

    const { events, turn, tts } = start({ chunks: 2 });
    turn.push('The museum opens at ');
    turn.mark(pause('1.0'), 'tag');
    turn.mark(nod, 'tag');
    turn.push('nine. It closes at five.');
    turn.end();
    const metrics = await turn.done;
    // The break cut the sentence: what is before it and what is after it are two syntheses.
    expect((tts as ReturnType<typeof scriptedTts>).calls.map((c) => c.text)).toEqual(['The museum opens at', 'nine. It closes at five.']);
    const words = wordsOf(events);
    const at = words.find((w) => w.w === 'at')!;
    const nine = words.find((w) => w.w === 'nine')!;
    expect(nine.t - (at.t + at.d)).toBeGreaterThanOrEqual(1000);
    const spans = loudSpans(audioOf(events), 16000);
    expect(spans).toHaveLength(words.length);
    expect(spans[4]!.startMs - spans[3]!.endMs).toBeGreaterThanOrEqual(1000);
    expect(Math.abs(spans[4]!.startMs - nine.t)).toBeLessThan(12);
    const silence = longestSilence(audioOf(events));
    expect(silence.ms).toBeGreaterThanOrEqual(1000);
    expect(silence.startMs).toBeGreaterThanOrEqual(at.t + at.d);
    // (the tone of a word starts at a zero sample: one sample of slack)
    expect(silence.startMs + silence.ms).toBeLessThanOrEqual(nine.t + 0.1);
    // Visemes sit on the sound: none in the pause.
    const inPause = visemesOf(events).filter((v) => v.v !== 'sil' && v.t > at.t + at.d && v.t < nine.t);
    expect(inPause).toEqual([]);
    // The break is sent at its start, the nod with "nine".
    const actions = actionsOf(events);
    expect(actions.map((a) => a.action.kind)).toEqual(['tag', 'gesture']);
    expect(actions[0]!.t).toBeGreaterThanOrEqual(Math.floor(at.t + at.d));
    expect(actions[0]!.t).toBeLessThanOrEqual(Math.ceil(nine.t) - 1000);
    // (at the start of the piece after the pause: the word's sound begins after its ≤ 30 ms pad)
    expect(actions[1]!.t).toBeLessThanOrEqual(Math.round(nine.t));
    expect(actions[1]!.t).toBeGreaterThanOrEqual(actions[0]!.t + 1000);
    expect(actions[1]!.t).toBeGreaterThan(nine.t - 50);
    // The word after the pause is later than without it by the pause (+ the cut's kept tail and pad).
    const plainNine = wordsOf(plain.events).find((w) => w.w === 'nine')!;
    expect(nine.t - plainNine.t).toBeGreaterThanOrEqual(1000);
    expect(nine.t - plainNine.t).toBeLessThan(1100);
    // The pause is audio of the utterance (what the page plays and the session counts as heard).
    expect(metrics.audioMs).toBeCloseTo((audioOf(events).length * 1000) / 16000, 3);
    expect(metrics.audioMs).toBeGreaterThan(words.at(-1)!.t + words.at(-1)!.d);
    // What the visitor heard when cut off in the pause: the words before it.
    expect(turn.heardText(at.t + at.d + 500)).toBe('The museum opens at');
    expect(turn.heardText(nine.t + nine.d)).toBe('The museum opens at nine');
  });

  it('bounded: one pause ≤ 5 s, an answer’s pauses ≤ 10 s in all; none before the first word is lost, none after the last is made', async () => {
    const { events, turn } = start({});
    turn.mark(pause('0.5'), 'tag');
    turn.push('One. ');
    turn.mark(pause('60'), 'tag');
    turn.push('Two. ');
    turn.mark(pause('4'), 'tag');
    turn.push('Three. ');
    turn.mark(pause('3'), 'tag');
    turn.push('Four.');
    turn.mark(pause('2'), 'tag');
    turn.end();
    const metrics = await turn.done;
    const spans = loudSpans(audioOf(events), 16000);
    expect(spans).toHaveLength(4);
    // 0.5 s before "One" (the 30 ms pad after it), 5 s (not 60), 4 s, then only the 0.5 s left of the 10 s.
    expect(spans[0]!.startMs).toBeGreaterThanOrEqual(500);
    expect(spans[0]!.startMs).toBeLessThan(560);
    const gaps = spans.slice(1).map((s, k) => s.startMs - spans[k]!.endMs);
    expect(gaps[0]).toBeGreaterThanOrEqual(5000);
    expect(gaps[0]).toBeLessThan(5400);
    expect(gaps[1]).toBeGreaterThanOrEqual(4000);
    expect(gaps[1]).toBeLessThan(4400);
    expect(gaps[2]).toBeGreaterThanOrEqual(500);
    expect(gaps[2]).toBeLessThan(900);
    // After the last word: no pause (the action still goes, at the end of the voice).
    expect(metrics.audioMs - spans[3]!.endMs).toBeLessThan(300);
    const actions = actionsOf(events);
    expect(actions).toHaveLength(5);
    expect(actions.at(-1)!.t).toBe(Math.round(metrics.audioMs));
  });

  it('speechSpeed: the pieces after it are asked for at that rate, for the rest of the session, until another', async () => {
    const tts = scriptedTts({});
    const pipeline = createSpeechPipeline({ tts });
    const say = async (utt: number, parts: (string | ReturnType<typeof speed>)[]) => {
      const turn = pipeline.startTurn({ utt, onEvent: () => {} });
      for (const p of parts) {
        if (typeof p === 'string') turn.push(p);
        else turn.mark(p, 'tag');
      }
      turn.end();
      await turn.done;
    };
    await say(1, ['Ah yes, I remember now - ', speed('20'), 'you asked me to speak quicker!']);
    await say(2, ['And so I still do.']);
    await say(3, [speed('-25'), 'Slower now. ', speed('0'), 'And back.']);
    await say(4, [speed('fast'), 'A speed that is no number changes nothing.']);
    expect(tts.calls.map((c) => [c.text, c.rate])).toEqual([
      ['Ah yes, I remember now -', undefined],
      ['you asked me to speak quicker!', 1.2],
      ['And so I still do.', 1.2],
      ['Slower now.', 0.75],
      ['And back.', undefined],
      ['A speed that is no number changes nothing.', undefined],
    ]);
  });

  it('a tag between every two words does not make a synthesis of every word: at most 16 cuts an answer', async () => {
    const { turn, tts } = start({});
    const words = Array.from({ length: 60 }, (_, k) => `word${k}`);
    words.forEach((w, k) => {
      turn.push(`${w} `);
      turn.mark(k % 3 === 0 ? pause('0.001') : speed(k % 2 ? '20' : '-20'), 'tag');
    });
    turn.end();
    await turn.done;
    const calls = (tts as ReturnType<typeof scriptedTts>).calls;
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.length).toBeLessThanOrEqual(16 + 2);
    expect(calls.map((c) => c.text).join(' ')).toBe(words.join(' '));
  });

  it('speechSpeed with the offline voice: the same sentence is measurably shorter at +50, longer at -30', async () => {
    await offline.warm();
    const sentence = 'The first room shows paintings from the north of the country.';
    const spoken = async (tag: string | null) => {
      const pipeline = createSpeechPipeline({ tts: createOfflineTts(offline) });
      const events: SpeechEvent[] = [];
      const turn = pipeline.startTurn({ utt: 1, onEvent: (e) => events.push(e) });
      if (tag !== null) turn.mark(speed(tag), 'tag');
      turn.push(sentence);
      turn.end();
      await turn.done;
      const spans = loudSpans(audioOf(events), 16000, 300);
      return spans.at(-1)!.endMs - spans[0]!.startMs;
    };
    const own = await spoken(null);
    const fast = await spoken('50');
    const slow = await spoken('-30');
    expect(own).toBeGreaterThan(1500);
    expect(fast / own).toBeLessThan(0.8);
    expect(fast / own).toBeGreaterThan(0.5);
    expect(slow / own).toBeGreaterThan(1.25);
    expect(slow / own).toBeLessThan(1.7);
  });

  it('cancelled in a pause: nothing more goes out, the pause’s piece is not spoken', async () => {
    const { events, turn, tts } = start({ delayMs: (text) => (text.startsWith('Then') ? 300 : 0) });
    turn.push('First this. ');
    turn.mark(pause('2'), 'tag');
    turn.push('Then that.');
    turn.end();
    // The silence goes out as soon as the first piece is done, before the next piece's audio.
    await new Promise<void>((resolve) => {
      const check = () => (longestSilence(audioOf(events)).ms >= 2000 ? resolve() : setTimeout(check, 5));
      check();
    });
    const words = wordsOf(events).map((w) => w.w);
    expect(words).toEqual(['First', 'this']);
    turn.cancel();
    const count = events.length;
    expect((await turn.done).interrupted).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(events.length).toBe(count);
    expect((tts as ReturnType<typeof scriptedTts>).calls.find((c) => c.text === 'Then that.')!.abortedAt).not.toBeNull();
    // Heard in the pause, or all the page was sent: the words before it.
    const first = wordsOf(events)[1]!;
    expect(turn.heardText(first.t + first.d + 1000)).toBe('First this.');
    expect(turn.heardText(1e9)).toBe('First this.');
  });
});
