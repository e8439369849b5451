import { describe, expect, it } from 'vitest';
import { FakeClock } from '../test/fake-clock.js';
import { readLiveSpeech } from '@persona/contract';
import type { Pronounce, SttEngine, SttEvents, SttSession } from '../providers/stt/types.js';
import { looksLikeEcho, looksUnfinished, TURN_DEFAULTS, turnOptionsFrom, type TurnOptions } from './options.js';
import { Listener, MISHEARD_BACKCHANNEL_MS, type ListenTurnMetrics } from './turns.js';
import { pronunciationsOf } from '../providers/stt/pronunciations.js';
import { VAD_WINDOW_SAMPLES, type VadStream } from './vad.js';


/** The VAD answers the scripted probability carried in each window's first sample. */
const scriptedVad: VadStream = { probability: async (w) => w[0]! * 32768 / 1000, reset: () => undefined };
const windowOf = (prob: number, marker = 100) => {
  // Audible (over the silence gate); the scripted probability rides in the first sample.
  const w = new Int16Array(VAD_WINDOW_SAMPLES).fill(marker);
  w[0] = Math.round(prob * 1000);
  return w;
};

/** An STT engine that answers the script's next text on each finalize (batch) or on cue (stream). */
function fakeStt(mode: 'batch' | 'stream', texts: string[] = []) {
  const state: { pushed: number; finalized: number; resets: number; events: SttEvents | null; delayMs: number; overAvatar?: { on: boolean; pushed: number }[] } = { pushed: 0, finalized: 0, resets: 0, events: null, delayMs: 0 };
  const engine: SttEngine = {
    provider: 'fake',
    mode,
    async open(_o, events) {
      state.events = events;
      const session: SttSession = {
        push: (pcm) => void (state.pushed += pcm.length),
        async finalize() {
          state.finalized++;
          const text = texts.shift() ?? '';
          events.onResult({ text, final: true });
        },
        reset: () => void state.resets++,
        overAvatar: (on) => void (state.overAvatar ??= []).push({ on, pushed: state.pushed }),
        close: () => undefined,
      };
      return session;
    },
  };
  return { engine, state };
}

function setup(opts: Partial<TurnOptions> = {}, stt = fakeStt('batch', ['hello there']), pronounce?: Pronounce) {
  const clock = new FakeClock();
  const log: string[] = [];
  const commits: { text: string; m: ListenTurnMetrics }[] = [];
  const previews: (string | null)[] = [];
  const listener = new Listener({
    options: { ...TURN_DEFAULTS, ...opts },
    vad: scriptedVad,
    stt: stt.engine,
    clock,
    ...(pronounce ? { pronounce } : {}),
    events: {
      transcript: (text, final) => log.push(`transcript:${final ? 'final' : 'interim'}:${text}`),
      commit: (text, m) => {
        log.push(`commit:${text}`);
        commits.push({ text, m });
      },
      pause: (utt) => log.push(`pause:${utt}`),
      resume: (utt) => log.push(`resume:${utt}`),
      interrupt: (utt) => log.push(`interrupt:${utt}`),
      speaking: (s) => log.push(s ? 'vad:start' : 'vad:end'),
      preview: (text) => previews.push(text),
    },
  });
  /** Feeds windows of these probabilities, 32 ms apart on the clock. */
  const feed = async (probs: number[]) => {
    for (const p of probs) {
      await clock.advance(32);
      await listener.push(windowOf(p));
    }
  };
  const speech = (ms: number, p = 0.9) => Array.from({ length: Math.round(ms / 32) }, () => p);
  const silence = (ms: number) => speech(ms, 0.05);
  return { clock, log, commits, previews, listener, feed, speech, silence, stt };
}

describe('turn-taking (DESIGN.md table, LiveKit semantics)', () => {
  it('activation_threshold: a window is speech only when its probability exceeds the threshold', async () => {
    const a = setup({ activationThreshold: 0.6 });
    await a.feed(a.speech(320, 0.55));
    expect(a.log).not.toContain('vad:start');
    await a.feed(a.speech(64, 0.65));
    expect(a.log).toContain('vad:start');
    const b = setup({ activationThreshold: 0.5 });
    await b.feed(b.speech(64, 0.5)); // equal is not above
    expect(b.log).not.toContain('vad:start');
  });

  it('min_speech_duration: start of speech after that much consecutive speech', async () => {
    const t = setup({ minSpeechMs: 200 });
    // 160 ms of speech broken by silence never starts speech.
    await t.feed([...t.speech(160), ...t.silence(32), ...t.speech(160)]);
    expect(t.log).not.toContain('vad:start');
    await t.feed(t.speech(64));
    expect(t.log.filter((l) => l === 'vad:start')).toHaveLength(1);
  });

  it('min_silence_duration: end of speech after that much consecutive non-speech', async () => {
    // Words with no sign of being over (a complete-looking turn is committed in the pause: endOfTurn).
    const t = setup({ minSilenceMs: 550 }, fakeStt('batch', ['the lemon oil']));
    await t.feed([...t.speech(320), ...t.silence(512)]); // 16 windows = 512 ms < 550
    expect(t.log).not.toContain('vad:end');
    await t.feed([...t.speech(64), ...t.silence(544)]); // 17 windows: still < 550
    expect(t.log).not.toContain('vad:end');
    await t.feed(t.silence(32)); // 18 windows = 576 ms
    expect(t.log).toContain('vad:end');
  });

  it('prefix_padding_duration: audio from before the start of speech goes to the STT', async () => {
    const count = async (padMs: number) => {
      const t = setup({ prefixPaddingMs: padMs, minSpeechMs: 64 });
      await t.feed([...t.silence(1000), ...t.speech(320), ...t.silence(600)]);
      return t.stt.state.pushed / 16;
    };
    const none = await count(0);
    const half = await count(500);
    // 500 ms of padding → 16 more windows (512 ms) of audio before the speech.
    expect(half - none).toBe(512);
  });

  it('max_buffered_speech: an utterance longer than the cap is cut at the cap', async () => {
    const t = setup({ maxBufferedSpeechMs: 1000, prefixPaddingMs: 0 });
    await t.feed([...t.speech(3000), ...t.silence(600)]);
    expect(t.stt.state.pushed).toBeLessThanOrEqual(16_000);
    expect(t.stt.state.pushed).toBeGreaterThan(15_000);
  });

  it('min_endpointing_delay: the turn is committed at last speech + delay', async () => {
    // Words with no sign either way: min_endpointing_delay itself.
    const t = setup({ minEndpointingMs: 1500, minSilenceMs: 320 }, fakeStt('batch', ['the lemon oil']));
    await t.feed([...t.speech(640), ...t.silence(320)]);
    const lastSpeech = t.clock.now() - 320;
    await t.clock.advance(1100);
    expect(t.commits).toHaveLength(0);
    await t.clock.advance(100);
    expect(t.commits).toHaveLength(1);
    expect(t.commits[0]!.text).toBe('the lemon oil');
    expect(t.commits[0]!.m.committedAt - lastSpeech).toBe(1500);
    expect(t.commits[0]!.m.endOfUtteranceMs).toBe(1500);
  });

  it('max_endpointing_delay: used instead when the turn looks unfinished', async () => {
    const t = setup({ minEndpointingMs: 500, maxEndpointingMs: 3000, minSilenceMs: 320 }, fakeStt('batch', ['I would like to book a table and']));
    await t.feed([...t.speech(640), ...t.silence(320)]);
    await t.clock.advance(1000);
    expect(t.commits).toHaveLength(0);
    await t.clock.advance(2000);
    expect(t.commits.map((c) => c.text)).toEqual(['I would like to book a table and']);
    // Speaking again before the commit continues the same turn.
    const u = setup({ minEndpointingMs: 500, maxEndpointingMs: 3000, minSilenceMs: 320 }, fakeStt('batch', ['so um', 'I want the red one']));
    await u.feed([...u.speech(640), ...u.silence(320)]);
    await u.clock.advance(800);
    await u.feed([...u.speech(640), ...u.silence(320)]);
    await u.clock.advance(600);
    expect(u.commits.map((c) => c.text)).toEqual(['so um I want the red one']);
  });

  it('allow_interruptions / min_interruption_duration / min_interruption_words: long enough speech with words stops the avatar', async () => {
    // Too short (a cough): paused, then resumed ~2 s after, no interruption.
    const a = setup({ minInterruptionMs: 500, minSilenceMs: 320 }, fakeStt('stream'));
    a.listener.setAgentSpeaking(7, 'the weather today is sunny');
    await a.clock.advance(1000);
    await a.feed([...a.speech(256), ...a.silence(320)]);
    expect(a.log).toContain('pause:7');
    await a.clock.advance(2100);
    expect(a.log).toContain('resume:7');
    expect(a.log).not.toContain('interrupt:7');

    // Long enough with one new word (min words 0 = at least one with streaming STT): interrupted.
    const b = setup({ minInterruptionMs: 500 }, fakeStt('stream'));
    b.listener.setAgentSpeaking(3, 'the weather today is sunny');
    await b.clock.advance(1000);
    await b.feed(b.speech(320));
    b.stt.state.events!.onResult({ text: 'tell', final: false });
    expect(b.log).not.toContain('interrupt:3'); // words, but only 320 ms of speech
    await b.feed(b.speech(256));
    expect(b.log).toContain('interrupt:3');

    // min_interruption_words 3: two words do not interrupt, three do.
    const c = setup({ minInterruptionMs: 200, minInterruptionWords: 3 }, fakeStt('stream'));
    c.listener.setAgentSpeaking(4, 'the weather today is sunny');
    await c.clock.advance(1000);
    await c.feed(c.speech(320));
    c.stt.state.events!.onResult({ text: 'tell me', final: false });
    await c.feed(c.speech(64));
    expect(c.log).not.toContain('interrupt:4');
    c.stt.state.events!.onResult({ text: 'tell me more', final: false });
    expect(c.log).toContain('interrupt:4');

    // allow_interruptions false: speech over the avatar is not even a turn.
    const d = setup({ allowInterruptions: false, minSilenceMs: 320 }, fakeStt('batch', ['stop talking']));
    d.listener.setAgentSpeaking(5, 'the weather today is sunny');
    await d.clock.advance(1000);
    await d.feed([...d.speech(1000), ...d.silence(320)]);
    await d.clock.advance(3000);
    expect(d.log.filter((l) => /pause|interrupt|commit/.test(l))).toEqual([]);
  });

  it('tells a batch recogniser, before its audio, whether a segment began over the avatar (ADR 107: it may listen for backchannels and stop requests)', async () => {
    const t = setup({ minSilenceMs: 320 }, fakeStt('batch', ['hello there', 'mm-hm']));
    await t.feed([...t.speech(320), ...t.silence(400)]);
    await t.clock.advance(1000);
    expect(t.stt.state.overAvatar).toEqual([{ on: false, pushed: 0 }]);
    const before = t.stt.state.pushed;
    expect(before).toBeGreaterThan(0);
    t.listener.setAgentSpeaking(5, 'the ferry leaves at noon from the east pier');
    await t.clock.advance(1000);
    await t.feed([...t.speech(320), ...t.silence(400)]);
    expect(t.stt.state.overAvatar).toEqual([{ on: false, pushed: 0 }, { on: true, pushed: before }]);
    expect(t.stt.state.pushed).toBeGreaterThan(before);
    // A streaming engine hears every frame anyway: it is not told.
    const s = setup({ minSilenceMs: 320 }, fakeStt('stream'));
    s.listener.setAgentSpeaking(5, 'the ferry leaves at noon from the east pier');
    await s.clock.advance(1000);
    await s.feed(s.speech(320));
    expect(s.stt.state.overAvatar).toBeUndefined();
  });

  it('backchannels over the avatar ("mm-hm", "I see", "oh no"; "okay" when it asked nothing) never stop it and it goes on as soon as they are heard; "wait", "hold on", "no, I meant…" stop it however short', async () => {
    const over = async (said: string, agentText = 'the ferry leaves at noon from the east pier', opts: Partial<TurnOptions> = {}) => {
      const t = setup({ minInterruptionMs: 300, minSilenceMs: 320, ...opts }, fakeStt('batch', [said]));
      t.listener.setAgentSpeaking(5, agentText);
      await t.clock.advance(1000);
      await t.feed([...t.speech(700), ...t.silence(320)]);
      await t.clock.advance(10);
      return t;
    };
    for (const said of ['mm-hm', 'yeah', 'yeah okay', 'right right', 'I see', 'oh wow', 'uh-huh', 'okay sure', 'got it', 'oh no', 'no problem']) {
      const t = await over(said);
      expect(t.log, said).toContain('pause:5');
      // Heard at once (the batch recogniser answered): it resumes now, not after the 2 s false-interruption time.
      expect(t.log, `${said}: ${t.log.join(' ')}`).toContain('resume:5');
      expect(t.log.some((l) => l.startsWith('interrupt') || l.startsWith('commit')), said).toBe(false);
    }
    // After a question, "yes" is the answer: it stops the avatar and is the visitor's turn.
    const answer = await over('yes', 'Shall I cancel order 4567? You will get a refund in five days.');
    await answer.clock.advance(1000);
    expect(answer.log).toContain('interrupt:5');
    expect(answer.commits.map((c) => c.text)).toEqual(['yes']);
    // Another language: the English rules are off ("no" is the start of "no sé"); the owner's thresholds decide.
    const spanish = setup({ minInterruptionMs: 500, minSilenceMs: 320 }, fakeStt('stream'));
    spanish.listener.setAgentSpeaking(9, 'el ferry sale a mediodía');
    await spanish.clock.advance(1000);
    await spanish.feed(spanish.speech(200));
    spanish.stt.state.events!.onResult({ text: 'no sé', final: false });
    expect(spanish.log).not.toContain('interrupt:9');

    for (const said of ['wait', 'stop', 'no I meant the other one', 'hold on', 'okay wait a second', 'excuse me', 'sorry that\'s not what I asked']) {
      // 200 ms of speech, under min_interruption_duration: a stop request stops the avatar anyway.
      const t = setup({ minInterruptionMs: 500, minSilenceMs: 320, minInterruptionWords: 2 }, fakeStt('stream'));
      t.listener.setAgentSpeaking(6, 'the ferry leaves at noon from the east pier');
      await t.clock.advance(1000);
      await t.feed(t.speech(200));
      t.stt.state.events!.onResult({ text: said, final: false });
      expect(t.log, said).toContain('interrupt:6');
    }
    // A bare "no" or "sorry" stops it only as the whole utterance: an interim "no" may be "no problem".
    const bare = setup({ minInterruptionMs: 500, minSilenceMs: 320, minInterruptionWords: 2 }, fakeStt('stream'));
    bare.listener.setAgentSpeaking(7, 'the ferry leaves at noon from the east pier');
    await bare.clock.advance(1000);
    await bare.feed(bare.speech(200));
    bare.stt.state.events!.onResult({ text: 'no', final: false });
    expect(bare.log).not.toContain('interrupt:7');
    bare.stt.state.events!.onResult({ text: 'no', final: true });
    expect(bare.log).toContain('interrupt:7');
    // Not a backchannel: a real sentence of the same words' kind still takes the turn when long enough.
    const u = await over('yeah but what about the bus');
    await u.clock.advance(1000);
    expect(u.log).toContain('interrupt:5');
  });

  it('a recogniser slower than the false-interruption time: the avatar stays paused until it answers, then words interrupt and silence resumes', async () => {
    /** A batch STT whose finalize answers only when the test says (a busy machine's offline recogniser). */
    const slowStt = () => {
      const answers: ((text: string) => void)[] = [];
      const engine: SttEngine = {
        provider: 'slow',
        mode: 'batch',
        async open(_o, events) {
          return {
            push: () => undefined,
            finalize: () => new Promise<void>((resolve) => answers.push((text) => (events.onResult({ text, final: true }), resolve()))),
            reset: () => undefined,
            close: () => undefined,
          };
        },
      };
      return { engine, state: { pushed: 0, finalized: 0, resets: 0, events: null, delayMs: 0 }, answers };
    };
    const slow = slowStt();
    const a = setup({ minInterruptionMs: 500, minSilenceMs: 320 }, slow);
    a.listener.setAgentSpeaking(6, 'the harbour was dug by hand in the spring');
    await a.clock.advance(1000);
    await a.feed([...a.speech(900), ...a.silence(320)]);
    expect(a.log).toContain('pause:6');
    await a.clock.advance(6000);
    // Still paused: the words may yet come.
    expect(a.log.filter((l) => /resume|interrupt/.test(l))).toEqual([]);
    slow.answers.shift()!('wait stop');
    await a.clock.advance(1000);
    expect(a.log).toContain('interrupt:6');
    expect(a.log).not.toContain('resume:6');
    expect(a.commits.map((c) => c.text)).toEqual(['wait stop']);

    // The same, and the recogniser finds nothing: the avatar goes on once it has answered.
    const quiet = slowStt();
    const b = setup({ minInterruptionMs: 500, minSilenceMs: 320 }, quiet);
    b.listener.setAgentSpeaking(8, 'the harbour was dug by hand in the spring');
    await b.clock.advance(1000);
    await b.feed([...b.speech(900), ...b.silence(320)]);
    await b.clock.advance(6000);
    expect(b.log).not.toContain('resume:8');
    quiet.answers.shift()!('');
    await b.clock.advance(100);
    expect(b.log).toContain('resume:8');
    expect(b.log.some((l) => l.startsWith('interrupt') || l.startsWith('commit'))).toBe(false);
  });

  it("the avatar's own voice does not interrupt it (echo guard, echo text)", async () => {
    const a = setup({ minInterruptionMs: 300, minSilenceMs: 320, echoGuardMs: 300 }, fakeStt('batch', ['weather today']));
    a.listener.setAgentSpeaking(9, 'the weather today is sunny and warm');
    await a.clock.advance(1000);
    await a.feed([...a.speech(640), ...a.silence(320)]);
    await a.clock.advance(2500);
    expect(a.log).toContain('pause:9');
    expect(a.log).toContain('resume:9');
    expect(a.log.some((l) => l.startsWith('interrupt') || l.startsWith('commit'))).toBe(false);
    // Speech starting as the utterance starts is ignored outright.
    const b = setup({ echoGuardMs: 300, minSilenceMs: 320 }, fakeStt('batch', ['hello']));
    b.listener.setAgentSpeaking(2, 'good morning');
    await b.feed([...b.speech(640), ...b.silence(320)]);
    await b.clock.advance(2500);
    expect(b.log.filter((l) => /pause|interrupt|commit/.test(l))).toEqual([]);
  });

  it('batch STT: the interruption is confirmed by the transcript, what follows is the next turn', async () => {
    const t = setup({ minInterruptionMs: 500, minSilenceMs: 320, minEndpointingMs: 500 }, fakeStt('batch', ['no tell me about paris']));
    t.listener.setAgentSpeaking(11, 'the weather today is sunny');
    await t.clock.advance(1000);
    await t.feed([...t.speech(800), ...t.silence(320)]);
    await t.clock.advance(300);
    expect(t.log.filter((l) => /pause|interrupt|commit|resume/.test(l))).toEqual(['pause:11', 'interrupt:11', 'commit:no tell me about paris']);
  });
});

describe('the silence gate', () => {
  it('does not ask the VAD model about digital silence', async () => {
    let calls = 0;
    const vad: VadStream = { probability: async () => (calls++, 0.9), reset: () => undefined };
    const l = new Listener({ options: TURN_DEFAULTS, vad, stt: fakeStt('batch').engine, clock: new FakeClock(), events: { transcript() {}, commit() {}, pause() {}, resume() {}, interrupt() {} } });
    await l.push(new Int16Array(VAD_WINDOW_SAMPLES * 10));
    expect(calls).toBe(0);
    await l.push(new Int16Array(VAD_WINDOW_SAMPLES * 3).fill(200));
    expect(calls).toBe(3);
    expect(l.isSpeaking).toBe(true);
  });
});

describe('options', () => {
  it('reads vad_options and interrupt_handling as stored (strings, older names, bad values)', () => {
    const o = turnOptionsFrom(
      readLiveSpeech(
        {
          vad_options: { activation_threshold: '0.7', min_speech_duration: 0.1, min_silence_duration: 'x', prefix_padding_duration: -1, max_buffered_speech: 30, min_endpointing_delay: 0.8, max_endpointing_delay: 0.2 },
          interrupt_handling: { allow_interruptions: false, interrupt_speech_duration: 0.7, interrupt_min_words: '2' },
        },
        { keys: false },
      ).turns,
    );
    expect(o).toMatchObject({ activationThreshold: 0.7, minSpeechMs: 100, minSilenceMs: 550, prefixPaddingMs: 500, maxBufferedSpeechMs: 30_000, minEndpointingMs: 800, maxEndpointingMs: 800, allowInterruptions: false, minInterruptionMs: 700, minInterruptionWords: 2 });
    expect(turnOptionsFrom(readLiveSpeech({}, { keys: false }).turns)).toEqual(TURN_DEFAULTS);
  });
  it('unfinished and echo rules', () => {
    for (const t of ['I went there and', 'so', 'um', 'because,', 'well...', 'it is, but', 'red or']) expect(looksUnfinished(t)).toBe(true);
    for (const t of ['I went there.', 'hello', 'what is it?', 'what is it like', 'where is the', '']) expect(looksUnfinished(t)).toBe(false);
    expect(looksLikeEcho('weather today', 'The weather today is sunny')).toBe(true);
    expect(looksLikeEcho('stop please', 'The weather today is sunny')).toBe(false);
  });
});

describe('backchannels and stop requests (the text rules)', () => {
  it('tells them apart', async () => {
    const { isBackchannel, isStopRequest } = await import('./options.js');
    for (const t of ['mm-hm', 'Mhm.', 'yeah', 'Yeah, yeah.', 'okay', 'OK right', 'I see', 'got it', 'oh wow', 'haha', 'uh-huh', 'sure', 'that makes sense']) expect(isBackchannel(t), t).toBe(true);
    for (const t of ['', 'yeah but why', 'I see the ship', 'okay so what time is it', 'it', 'I', 'yes I would like a ticket to Paris', 'wait']) expect(isBackchannel(t), t).toBe(false);
    for (const t of ['yes', 'okay', 'sure', 'yeah okay']) expect(isBackchannel(t, { affirmations: false }), t).toBe(false);
    for (const t of ['mm-hm', 'I see', 'oh no']) expect(isBackchannel(t, { affirmations: false }), t).toBe(true);
    for (const t of ['wait', 'Stop!', 'no, I meant Tuesday', 'hold on', 'excuse me', 'okay wait', 'just a second', 'No.', 'Sorry.', 'actually no']) expect(isStopRequest(t), t).toBe(true);
    for (const t of ['yeah', 'I can wait', 'nobody told me', 'notice', 'the stop is near', 'okay', 'No problem, go ahead', 'No worries', 'Oh no', 'Oh no, that is awful', 'Sorry to hear that', 'Actually that sounds great', 'Listen, that is great', 'Sorry, what?']) expect(isStopRequest(t), t).toBe(false);
    // An interim "no" is not yet a request: it may become "no problem".
    expect(isStopRequest('no', false)).toBe(false);
    expect(isStopRequest('wait', false)).toBe(true);
  });
});

describe('end of turn from what was said (issue 29, ADR 095)', () => {
  it('unfinished, neutral and complete words', async () => {
    const { endOfTurn } = await import('./options.js');
    const kind = (t: string) => endOfTurn(t).kind;
    const unfinished = ['tell me about', 'I went there and', 'so um', 'because', 'I want to', 'my name is', 'I would like to book a table for', 'I have a problem with the', 'and then I', 'let me think', 'I was wondering', 'what is', 'the address is', 'it is, but', 'I need', 'well...'];
    const complete = ['what are your opening hours', 'what time does the museum open', 'who do I talk to', 'what is it for', 'can you help me', 'is there a guided tour today', "what's your name", 'yes', 'no thanks', "that's all", 'thank you very much', 'I think so', 'I want to cancel my order', 'I went to the park with my sister yesterday', 'Okay.', 'so what time do you close', 'turn it off', 'the meeting has been moved to next tuesday', 'goodbye and have a nice day'];
    const neutral = ['hold on', 'the lemon oil', 'hello world', 'do you have', 'could you'];
    for (const t of unfinished) expect(kind(t), t).toBe('unfinished');
    for (const t of complete) expect(kind(t), t).toBe('complete');
    for (const t of neutral) expect(kind(t), t).toBe('neutral');
  });

  it('the delay stays within the Advanced tab bounds, complete turns above the floor', async () => {
    const { COMPLETE_FLOOR_MS, endpointingDelay } = await import('./options.js');
    const o = { minEndpointingMs: 500, maxEndpointingMs: 6000 };
    expect(endpointingDelay('I want to', o)).toBe(6000);
    expect(endpointingDelay('the lemon oil', o)).toBe(500);
    expect(endpointingDelay('what time do you open', o)).toBe(250);
    expect(endpointingDelay('I went to the park yesterday', o)).toBe(375);
    expect(endpointingDelay('I need', o)).toBe(1000);
    // An owner's short window: the floor holds; a long one is halved; max never exceeded.
    expect(endpointingDelay('yes', { minEndpointingMs: 200, maxEndpointingMs: 400 })).toBe(200);
    expect(endpointingDelay('yes', { minEndpointingMs: 300, maxEndpointingMs: 400 })).toBe(COMPLETE_FLOOR_MS);
    expect(endpointingDelay('yes', { minEndpointingMs: 2000, maxEndpointingMs: 3000 })).toBe(1000);
    expect(endpointingDelay('I need', { minEndpointingMs: 500, maxEndpointingMs: 800 })).toBe(800);
  });

  it('a complete question is committed in the pause, before min_silence_duration ends the speech', async () => {
    const t = setup({}, fakeStt('batch', ['what time does the museum open']));
    await t.feed(t.speech(640));
    const lastSpeech = t.clock.now();
    await t.feed(t.silence(320));
    expect(t.commits.map((c) => c.text)).toEqual(['what time does the museum open']);
    // The early transcript at 200 ms (batch), committed at last speech + 250 ms (the next window).
    expect(t.commits[0]!.m.committedAt - lastSpeech).toBeLessThanOrEqual(256);
    expect(t.commits[0]!.m.endOfUtteranceMs).toBe(t.commits[0]!.m.committedAt - t.commits[0]!.m.lastSpeechAt);
    expect(t.log).toContain('vad:end');
  });

  it('an unfinished clause waits through a mid-sentence pause; speech in the pause cancels an early commit', async () => {
    const t = setup({}, fakeStt('batch', ['my name is', 'John Smith']));
    await t.feed([...t.speech(640), ...t.silence(900), ...t.speech(480), ...t.silence(640)]);
    expect(t.commits.map((c) => c.text)).toEqual(['my name is John Smith']);
    // A pause shorter than the early commit: the words go on in the same turn.
    const u = setup({ minSilenceMs: 550 }, fakeStt('batch', ['I want the red one', 'and the blue one']));
    await u.feed([...u.speech(640), ...u.silence(224), ...u.speech(480), ...u.silence(640)]);
    expect(u.commits.map((c) => c.text)).toEqual(['I want the red one and the blue one']);
  });

  it('other languages keep the silence rule; the old rule stays available', async () => {
    const fr = new FakeClock();
    const commits: number[] = [];
    const { engine } = fakeStt('batch', ['quelle heure est-il']);
    const l = new Listener({ options: TURN_DEFAULTS, vad: scriptedVad, stt: engine, clock: fr, sttLanguages: ['fr-FR'], events: { transcript() {}, commit: (_t, m) => commits.push(m.endOfUtteranceMs), pause() {}, resume() {}, interrupt() {} } });
    for (let i = 0; i < 20; i++) {
      await fr.advance(32);
      await l.push(windowOf(0.9));
    }
    for (let i = 0; i < 30; i++) {
      await fr.advance(32);
      await l.push(windowOf(0.05));
    }
    expect(commits).toHaveLength(1);
    expect(commits[0]).toBeGreaterThanOrEqual(TURN_DEFAULTS.minSilenceMs);
    const old = setup({ endOfTurn: 'hanging-words' }, fakeStt('batch', ['what time does the museum open']));
    await old.feed([...old.speech(640), ...old.silence(320)]);
    expect(old.commits).toHaveLength(0);
    await old.feed(old.silence(320));
    expect(old.commits[0]!.m.endOfUtteranceMs).toBeGreaterThanOrEqual(TURN_DEFAULTS.minSilenceMs);
  });

  it('previews a complete-looking turn before its commit, and withdraws it when the visitor goes on', async () => {
    const stt = fakeStt('stream');
    const t = setup({}, stt);
    const previews = t.previews;
    await t.feed(t.speech(320));
    stt.state.events!.onResult({ text: 'is there a guided tour', final: false });
    await t.feed(t.silence(128));
    expect(previews).toEqual(['is there a guided tour']);
    await t.feed(t.speech(320));
    expect(previews).toEqual(['is there a guided tour', null]);
  });
});

describe('over the avatar, decided as soon as the recogniser has answered (issue 29)', () => {
  it('a cough with no words, or a backchannel, resumes it in the pause; a stop request stops it', async () => {
    for (const heard of ['', 'mm-hm']) {
      const t = setup({}, fakeStt('batch', [heard]));
      t.listener.setAgentSpeaking(7, 'The museum opens at nine.');
      await t.clock.advance(1000);
      await t.feed([...t.speech(288), ...t.silence(160)]);
      // Asked after 96 ms of pause (the fake answers at once): resumed there, not 2 s later.
      expect(t.log, heard).toContain('resume:7');
      expect(t.log).not.toContain('interrupt:7');
      // More speech after it holds the avatar again (a new segment).
      t.listener.setAgentSpeaking(8, 'Tickets are twelve euros.');
      await t.clock.advance(400);
      await t.feed(t.speech(128));
      expect(t.log).toContain('pause:8');
    }
    // A short "wait": resumed early as a short burst (ADR 104), stopped as soon as the recogniser heard it.
    const s = setup({}, fakeStt('batch', ['wait']));
    s.listener.setAgentSpeaking(7, 'The museum opens at nine.');
    await s.clock.advance(1000);
    await s.feed([...s.speech(288), ...s.silence(160)]);
    expect(s.log.filter((l) => /pause|resume|interrupt/.test(l))).toEqual(['pause:7', 'resume:7', 'interrupt:7']);
    // The rule before (held until the recogniser has answered): never resumed.
    const r = setup({ overlapDecision: 'recogniser' }, fakeStt('batch', ['wait']));
    r.listener.setAgentSpeaking(7, 'The museum opens at nine.');
    await r.clock.advance(1000);
    await r.feed([...r.speech(288), ...r.silence(160)]);
    expect(r.log.filter((l) => /pause|resume|interrupt/.test(l))).toEqual(['pause:7', 'interrupt:7']);
  });

  it('the text given before the utterance is heard (a wake-up line, an answer ahead of its voice) is still its text when it starts: "yes" after its question takes the turn', async () => {
    const t = setup({}, fakeStt('batch', ['yes']));
    // The conversation's order: the text first, then the first audio (SpeakingTracker → setAgentSpeaking without text).
    t.listener.setAgentText(7, 'Would you like a guided tour?');
    t.listener.setAgentSpeaking(7);
    await t.clock.advance(1000);
    // Longer than min_interruption_duration: an answer, not a backchannel, after a question.
    await t.feed([...t.speech(608), ...t.silence(160)]);
    await t.clock.advance(2500);
    expect(t.log).toContain('interrupt:7');
  });

  it('batch: one word from a short sound is a misheard backchannel (the offline recogniser wrote "two" for "mm-hm"); longer, more words, a stop request or after a question, it stops the avatar', async () => {
    const over = async (heard: string, speechMs: number, agent = 'The museum opens at nine.') => {
      const t = setup({}, fakeStt('batch', [heard]));
      t.listener.setAgentSpeaking(7, agent);
      await t.clock.advance(1000);
      await t.feed([...t.speech(speechMs), ...t.silence(160)]);
      await t.clock.advance(2500);
      return t.log.includes('interrupt:7') ? 'stopped' : t.log.includes('resume:7') ? 'went on' : 'held';
    };
    expect(await over('two', 800)).toBe('went on');
    expect(await over('two', MISHEARD_BACKCHANNEL_MS + 96)).toBe('stopped');
    expect(await over('two tickets', 800)).toBe('stopped');
    expect(await over('stop', 800)).toBe('stopped');
    expect(await over('two', 800, 'How many tickets would you like?')).toBe('stopped');
  });

  it('a stop request the recogniser misheard as other words ("gold on", "top", "weight") stops it when they sound like one (ADR 109); without the pronunciations, or words that do not, it goes on', async () => {
    const pronounce = pronunciationsOf(['gold G OW L D', 'hold HH OW L D', 'hang HH AE NG', 'and AH N D', 'and(2) AE N D', 'on AA N', 'stop S T AA P', 'top T AA P', 'wait W EY T', 'weight W EY T', 'what W AH T', 'elite IH L IY T', 'you Y UW'].join('\n'));
    const over = async (heard: string, words?: Pronounce, streaming = false) => {
      const stt = fakeStt(streaming ? 'stream' : 'batch', [heard]);
      const t = setup({}, stt, words);
      t.listener.setAgentSpeaking(7, 'The museum opens at nine.');
      await t.clock.advance(1000);
      await t.feed(t.speech(480));
      if (streaming) stt.state.events!.onResult({ text: heard, final: true });
      await t.feed(t.silence(1200));
      await t.clock.advance(2500);
      return t.log.includes('interrupt:7') ? 'stopped' : t.log.includes('resume:7') ? 'went on' : 'held';
    };
    for (const heard of ['gold on', 'top', 'weight']) {
      expect(await over(heard, pronounce), heard).toBe('stopped');
      expect(await over(heard), `${heard} without pronunciations`).toBe('went on');
    }
    // Two phonemes or more from every phrase, or a short phrase one phoneme off: as before.
    for (const heard of ['and on', 'what', 'elite you']) expect(await over(heard, pronounce), heard).toBe('went on');
    // A streaming recogniser's final words too.
    expect(await over('gold on', pronounce, true)).toBe('stopped');
    // Its own words through the speakers are no stop request: "top" while it says "the top floor".
    const echo = setup({}, fakeStt('batch', ['top']), pronounce);
    echo.listener.setAgentSpeaking(7, 'The café is on the top floor.');
    await echo.clock.advance(1000);
    await echo.feed([...echo.speech(480), ...echo.silence(1200)]);
    await echo.clock.advance(2500);
    expect(echo.log).toContain('resume:7');
    expect(echo.log).not.toContain('interrupt:7');
  });
});

describe('over the avatar, decided before the recogniser (issue 29, ADR 104)', () => {
  /** A batch recogniser that answers only when the test says (pocketsphinx on a busy machine: 0.5–2 s). */
  /** A recogniser the test answers for; `answerMs`: what the engine knows of its recent answer time. */
  const gatedStt = (answerMs?: number) => {
    const answers: ((text: string) => void)[] = [];
    const engine: SttEngine = {
      provider: 'gated',
      mode: 'batch',
      ...(answerMs !== undefined ? { answerMs: () => answerMs } : {}),
      async open(_o, events) {
        return {
          push: () => undefined,
          finalize: () => new Promise<void>((resolve) => answers.push((text) => (events.onResult({ text, final: true }), resolve()))),
          reset: () => undefined,
          close: () => undefined,
        };
      },
    };
    return { engine, state: { pushed: 0, finalized: 0, resets: 0, events: null, delayMs: 0 }, answers };
  };
  const AVATAR = 'The museum opens at nine and closes at five.';
  /** A burst of speech over the avatar and 320 ms of silence after it (still in the VAD's segment). */
  const over = async (speechMs: number, opts: Partial<TurnOptions> = {}) => {
    const stt = gatedStt();
    const t = setup(opts, stt);
    t.listener.setAgentSpeaking(4, AVATAR);
    await t.clock.advance(1000);
    await t.feed([...t.speech(speechMs), ...t.silence(320)]);
    return { t, stt };
  };
  const eventsOf = (log: string[]) => log.filter((l) => /pause|resume|interrupt|commit/.test(l));

  it('a short burst that stops resumes the avatar within 300 ms of its end, the recogniser not having answered', async () => {
    const stt = gatedStt();
    const t = setup({}, stt);
    t.listener.setAgentSpeaking(4, AVATAR);
    await t.clock.advance(1000);
    await t.feed(t.speech(320));
    expect(eventsOf(t.log)).toEqual(['pause:4']);
    const end = t.clock.now();
    let resumedAt: number | null = null;
    while (resumedAt === null && t.clock.now() - end < 1000) {
      await t.feed(t.silence(32));
      if (t.log.includes('resume:4')) resumedAt = t.clock.now();
    }
    expect(resumedAt).not.toBeNull();
    expect(resumedAt! - end).toBeLessThanOrEqual(128);
    // The recogniser was asked but has not answered: the decision did not wait for it.
    expect(stt.answers.length).toBe(1);
    expect(t.listener.isPaused).toBe(false);
    // Its verdict, a backchannel: nothing more (no second resume, no turn).
    stt.answers.shift()!('mm-hm');
    await t.feed(t.silence(640));
    await t.clock.advance(3000);
    expect(eventsOf(t.log)).toEqual(['pause:4', 'resume:4']);
  });

  it('the recogniser still corrects it: a short "stop" stops the avatar when heard, and is the visitor\'s turn', async () => {
    const { t, stt } = await over(320);
    expect(eventsOf(t.log)).toEqual(['pause:4', 'resume:4']);
    stt.answers.shift()!('stop');
    await t.feed(t.silence(640));
    await t.clock.advance(1500);
    expect(eventsOf(t.log)).toEqual(['pause:4', 'resume:4', 'interrupt:4', 'commit:stop']);
  });

  it('longer than shortBurstMs, or a shout louder than the visitor speaks: held until the recogniser has answered', async () => {
    const long = await over(608);
    await long.t.clock.advance(100);
    expect(eventsOf(long.t.log)).toEqual(['pause:4']);
    long.stt.answers.shift()!('');
    await long.t.clock.advance(100);
    expect(eventsOf(long.t.log)).toEqual(['pause:4', 'resume:4']);

    // The visitor's own turn at their level first, then a 10 dB louder burst over the avatar.
    const stt = gatedStt();
    const t = setup({}, stt);
    const at = async (marker: number, probs: number[]) => {
      for (const p of probs) {
        await t.clock.advance(32);
        await t.listener.push(windowOf(p, marker));
      }
    };
    await at(1000, [...t.speech(640), ...t.silence(700)]);
    stt.answers.shift()!('hello there');
    await t.clock.advance(1000);
    t.listener.setAgentSpeaking(4, AVATAR);
    await t.clock.advance(1000);
    await at(3200, [...t.speech(320), ...t.silence(320)]);
    expect(eventsOf(t.log)).toEqual(['commit:hello there', 'pause:4']);
    await at(1, t.silence(320));
    // At the visitor's own level, the same burst resumes early.
    t.listener.setAgentSpeaking(null);
    stt.answers.shift()!('');
    await t.clock.advance(2500);
    t.listener.setAgentSpeaking(5, AVATAR);
    await t.clock.advance(1000);
    await at(1000, [...t.speech(320), ...t.silence(320)]);
    expect(eventsOf(t.log).slice(-2)).toEqual(['pause:5', 'resume:5']);
  });

  it('resumeAfterMs: a recogniser that answers within it decides first (a "wait" is never resumed)', async () => {
    const t = setup({ resumeAfterMs: 224 }, fakeStt('batch', ['wait']));
    t.listener.setAgentSpeaking(4, AVATAR);
    await t.clock.advance(1000);
    await t.feed([...t.speech(288), ...t.silence(320)]);
    expect(eventsOf(t.log)).toEqual(['pause:4', 'interrupt:4']);
    // A slow one does not: resumed at 224 ms of pause.
    const { t: slow } = await over(288, { resumeAfterMs: 224 });
    expect(eventsOf(slow.log)).toEqual(['pause:4', 'resume:4']);
    // Also when min_silence_duration has ended the segment before it.
    const { t: short } = await over(288, { resumeAfterMs: 224, minSilenceMs: 128 });
    expect(eventsOf(short.log)).toEqual(['pause:4', 'resume:4']);
  });

  it('verdictBudgetMs: a recogniser whose last answer came in time is waited for up to it; a slow one is not', async () => {
    const afterTurn = async (answerMs: number) => {
      const stt = gatedStt();
      const t = setup({ verdictBudgetMs: 300 }, stt);
      // The visitor's question: the recogniser answers `answerMs` after it was asked.
      await t.feed([...t.speech(320), ...t.silence(224)]);
      await t.clock.advance(answerMs);
      stt.answers.shift()!('hello there');
      await t.feed(t.silence(640));
      t.listener.setAgentSpeaking(4, AVATAR);
      await t.clock.advance(1000);
      await t.feed([...t.speech(288), ...t.silence(160)]);
      return { t, stt };
    };
    // Fast (answered in ~100 ms): not resumed at 96 or 160 ms of pause; its "wait" stops it, never resumed.
    const fast = await afterTurn(100);
    expect(eventsOf(fast.t.log)).toEqual(['commit:hello there', 'pause:4']);
    fast.stt.answers.shift()!('wait');
    await fast.t.feed(fast.t.silence(640));
    expect(eventsOf(fast.t.log)).toEqual(['commit:hello there', 'pause:4', 'interrupt:4', 'commit:wait']);
    // Fast before, silent now: resumed at the budget.
    const late = await afterTurn(100);
    await late.t.feed(late.t.silence(96));
    expect(eventsOf(late.t.log)).toEqual(['commit:hello there', 'pause:4']);
    await late.t.feed(late.t.silence(64));
    expect(eventsOf(late.t.log)).toEqual(['commit:hello there', 'pause:4', 'resume:4']);
    // Slow (answered in 600 ms): resumed at 96 ms of pause, before its verdict.
    const slow = await afterTurn(600);
    expect(eventsOf(slow.t.log)).toEqual(['commit:hello there', 'pause:4', 'resume:4']);
  });

  it('before the session has measured its recogniser, the engine\'s recent answer time counts: a "wait" over the greeting is never resumed', async () => {
    const first = async (answerMs: number) => {
      const stt = gatedStt(answerMs);
      const t = setup({}, stt);
      t.listener.setAgentSpeaking(4, AVATAR);
      await t.clock.advance(1000);
      await t.feed([...t.speech(288), ...t.silence(160)]);
      return { t, stt };
    };
    // Fast on other sessions (50 ms): waited for; its "wait" stops the avatar without a resume first.
    const fast = await first(50);
    expect(eventsOf(fast.t.log)).toEqual(['pause:4']);
    fast.stt.answers.shift()!('wait');
    await fast.t.feed(fast.t.silence(640));
    expect(eventsOf(fast.t.log)).toEqual(['pause:4', 'interrupt:4', 'commit:wait']);
    // Slow on other sessions (600 ms): resumed at 96 ms of pause, before its verdict (as with none known).
    const slow = await first(600);
    expect(eventsOf(slow.t.log)).toEqual(['pause:4', 'resume:4']);
  });

  it('speech again after an early resume holds the avatar again at once', async () => {
    const stt = gatedStt();
    const t = setup({}, stt);
    t.listener.setAgentSpeaking(4, AVATAR);
    await t.clock.advance(1000);
    await t.feed([...t.speech(256), ...t.silence(160), ...t.speech(96)]);
    expect(eventsOf(t.log)).toEqual(['pause:4', 'resume:4', 'pause:4']);
  });

  it('the utterance heard to its end before the verdict: a backchannel is no turn, a stop request is the visitor\'s turn (nothing left to stop)', async () => {
    for (const [heard, expected] of [['mm-hm', []], ['wait', ['commit:wait']]] as const) {
      const { t, stt } = await over(320);
      t.listener.setAgentSpeaking(null);
      stt.answers.shift()!(heard);
      await t.feed(t.silence(640));
      await t.clock.advance(2500);
      expect(eventsOf(t.log).slice(2), heard).toEqual(expected);
    }
  });

  it('holdAfterMs: a burst shorter than it never holds the avatar; a longer one is held once it has lasted that long', async () => {
    const short = await over(192, { holdAfterMs: 250 });
    expect(eventsOf(short.t.log)).toEqual([]);
    short.stt.answers.shift()!('mm-hm');
    await short.t.clock.advance(2500);
    expect(eventsOf(short.t.log)).toEqual([]);
    const stt = gatedStt();
    const t = setup({ holdAfterMs: 250 }, stt);
    t.listener.setAgentSpeaking(4, AVATAR);
    await t.clock.advance(1000);
    await t.feed(t.speech(224));
    expect(eventsOf(t.log)).toEqual([]);
    await t.feed(t.speech(32));
    expect(eventsOf(t.log)).toEqual(['pause:4']);
  });

  it('a streaming recogniser, or overlapDecision "recogniser": held until the words are known', async () => {
    const r = await over(320, { overlapDecision: 'recogniser' });
    await r.t.clock.advance(1000);
    expect(eventsOf(r.t.log)).toEqual(['pause:4']);
    const s = setup({}, fakeStt('stream'));
    s.listener.setAgentSpeaking(4, AVATAR);
    await s.clock.advance(1000);
    await s.feed([...s.speech(320), ...s.silence(64)]);
    expect(eventsOf(s.log)).toEqual(['pause:4']);
    s.stt.state.events!.onResult({ text: 'mm-hm', final: false });
    await s.feed(s.silence(96));
    expect(eventsOf(s.log)).toEqual(['pause:4', 'resume:4']);
  });
});

describe('in a room that talks (the room gate, issue 29, ADR 101)', () => {
  /** A window at `dbfs` whose scripted VAD probability is `prob` (babble is speech to the VAD). */
  const at = (prob: number, dbfs: number) => {
    const w = new Int16Array(VAD_WINDOW_SAMPLES).fill(Math.round(32768 * 10 ** (dbfs / 20)));
    w[0] = Math.round(prob * 1000);
    return w;
  };
  async function room(roomGateDb: number) {
    const t = setup({ roomGateDb });
    const play = async (ms: number, dbfs: number) => {
      for (let i = 0; i < Math.round(ms / 32); i++) {
        await t.clock.advance(32);
        await t.listener.push(at(0.9, dbfs));
      }
    };
    return { ...t, play };
  }

  it('the visitor’s question over babble ends and is answered; babble alone, and a short loud burst in it, are not a turn', async () => {
    const r = await room(12);
    await r.play(3000, -35); // the next tables
    await r.play(200, -20); // a loud word there
    await r.play(2000, -35);
    expect(r.commits).toEqual([]);
    expect(r.stt.state.finalized).toBe(0);
    await r.play(1500, -20); // the visitor's question, close to the mic
    await r.play(2000, -35);
    await r.clock.advance(3000);
    expect(r.commits.map((c) => c.text)).toEqual(['hello there']);
  });

  it('without the gate the babble holds the turn open: the question is never answered', async () => {
    const r = await room(0);
    await r.play(3000, -35);
    await r.play(1500, -20);
    await r.play(3000, -35);
    await r.clock.advance(3000);
    expect(r.commits).toEqual([]);
  });
});
