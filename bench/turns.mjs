// End of turn, preemptive generation, backchannels (issue 29, ADR 095): `npm run bench -- turns`.
// Never part of the test suite.
//
// 1. Transcript level, through the built worker's Listener on a fake clock (deterministic, no
//    audio): each utterance is a script of spoken chunks (290 ms a word) and pauses, fed as 32 ms
//    windows whose VAD probability is scripted (0.9 speech, 0.05 silence: Silero's own lag after
//    the last voiced sample is NOT modelled here — part 2 has it). The recogniser is a fake that
//    knows which chunk each window belongs to: `batch` (as the offline recogniser: the words of the
//    audio since the last request, 227 ms after it — pocketsphinx's figure for one visitor, ADR
//    068) and `stream` (as Deepgram: interim words while they are said, the final 50 ms after a
//    finalize). Before (`hanging-words`: the rule before issue 29) and after (`rules`), same run:
//    - 46 utterances with one mid-sentence pause of 300–900 ms (after a conjunction, a filler, a
//      preposition, an article, an unfinished clause, and 6 after words that already make a
//      complete sentence — "is there a guided tour … in French"): a false cut-off is a commit
//      before the last word (the first commit's words are not all of them);
//    - 68 complete utterances (wer.mjs's 60 sentences, lower case without punctuation as the
//      offline recogniser gives them, and 8 short answers): end of speech → commit;
//    - a floor sweep of completeFloorMs (stream, where the floor can bind);
//    - preemptive generation (stream): turns previewed, previews the commit would reuse, head start.
//    - over the avatar: 20 backchannels / coughs / laughs (it must go on: no interruption, resumed
//      within 300 ms of the end of the sound) and 12 real interruptions (it must stop: held at once,
//      `interrupted` within 300 ms of the end of the words).
// 2. The offline path (bench/conversation.mjs's measurement: the offline voice speaking 5 lines as
//    20 ms mic frames in real time into a live Conversation — Silero VAD, pocketsphinx, echo
//    brain, the offline voice): last voiced sample → first avatar audio frame at the "page",
//    before and after, same run; and the rules again listening with the streaming recogniser
//    (python3-pocketsphinx, ADR 106). BENCH_TURNS=transcripts skips it; BENCH_TURNS=over-avatar runs only
//    the over-the-avatar part of 1. (ADR 104: each decision, and the batch recogniser at 227 ms and
//    at 1000 ms — a loaded machine's pocketsphinx, ADR 100).
//    BENCH_TURNS=over-avatar-live: the over-the-avatar words said by espeak-ng (160 and 240 wpm) in
//    real time over a live Conversation's avatar (Silero, the offline recogniser — streaming unless
//    BENCH_TURNS_RECOGNISER=batch — the offline voice): goes-on and stops rates end to end.
// 3. Batch against streaming recogniser on the same 12 sentences (compareRecognisers): end of the
//    utterance → final text, WER, resident memory and CPU per audio second. BENCH_TURNS=stream
//    runs only 2 (rules, batch and streaming) and 3.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { IN_DOMAIN, GENERAL } from './wer.mjs';
import { percentile, round, workerDist as dist } from './support.mjs';

const stats = (v) => (v.length ? { n: v.length, p50: round(percentile(v, 50)), p95: round(percentile(v, 95)), max: round(Math.max(...v)) } : { n: 0 });
const WORD_MS = 290;
/** The fake recognisers' answer time (ms). */
// BENCH_TURNS_BATCH_STT_MS: another answer time for the batch fake — the streaming offline
// recogniser (ADR 106) is a batch engine to the listener that answers ~25 ms after the flush.
const STT = { batch: Number(process.env.BENCH_TURNS_BATCH_STT_MS) || 227, stream: 50 };
const sttLatency = (mode, ms) => ms ?? STT[mode];
const TARGETS = { falseCutOffPct: 5, offlineFirstAudioP50Ms: 450, backchannelPct: 95, interruptionPct: 95, reactMs: 300 };

/** A clock the bench moves: timers fire as time passes. */
class FakeClock {
  t = 1_000_000;
  timers = [];
  ids = 0;
  now = () => this.t;
  setTimeout = (fn, ms) => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  async advance(ms) {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await settle();
  }
}
const settle = async () => {
  for (let i = 0; i < 30; i++) await Promise.resolve();
};

const words = (t) => t.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
const norm = (t) => words(t).join(' ');
const plain = (t) => norm(t.replace(/-/g, ' '));

/** One 32 ms window: VAD probability, chunk id (0: none) and the window's index in its chunk, in its first samples. */
function windowOf(prob, chunk = 0, index = 0) {
  // Speech near −21 dBFS with a quieter window between words (−41), silence near −50: real speech's
  // level moves, and the room gate (ADR 101) takes a second of speech at one steady level for the
  // room's babble — before, every sentence over ~2.5 s was dropped here, never committed.
  const w = new Int16Array(512).fill(prob > 0.5 ? (index % 4 === 3 ? 300 : 3000) : 100);
  w[0] = Math.round(prob * 1000);
  w[1] = chunk;
  w[2] = index;
  return w;
}

/** The fake recogniser: which chunk each window is, the words said so far of it. */
function fakeStt(mode, clock, chunks, latencyMs) {
  const heard = new Map(); // chunk id → windows of it heard
  const engine = {
    provider: 'bench',
    mode,
    async open(_o, events) {
      const text = () => [...heard.entries()].map(([id, n]) => {
        const c = chunks[id - 1];
        const all = words(c.text);
        return all.slice(0, Math.min(all.length, Math.ceil((n / c.windows) * all.length))).join(' ');
      }).filter(Boolean).join(' ');
      let last = '';
      return {
        push(pcm) {
          for (let at = 0; at + 512 <= pcm.length; at += 512) {
            const id = pcm[at + 1];
            if (id > 0) heard.set(id, Math.max(heard.get(id) ?? 0, pcm[at + 2] + 1));
          }
          if (mode === 'stream') {
            const t = text();
            if (t !== last) {
              last = t;
              events.onResult({ text: t, final: false });
            }
          }
        },
        finalize() {
          const t = text();
          heard.clear();
          last = '';
          return new Promise((resolve) =>
            clock.setTimeout(() => {
              events.onResult({ text: t, final: true });
              resolve();
            }, sttLatency(mode, latencyMs)),
          );
        },
        reset() {
          heard.clear();
          last = '';
        },
        close() {},
      };
    },
  };
  return engine;
}

/** Runs one utterance script through a Listener; commits, previews, avatar events with their times. */
async function runScript(mods, options, mode, script, avatar = null, latencyMs = undefined, answerMs = null) {
  const clock = new FakeClock();
  const chunks = script.chunks.map((c) => ({ text: c.text, windows: Math.max(1, Math.round((c.ms ?? Math.max(1, words(c.text).length) * WORD_MS) / 32)) }));
  const ev = { commits: [], previews: [], pause: [], resume: [], interrupt: [], voiced: [], reopened: 0 };
  // `answerMs`: the session answers each commit aloud this long after it (brain + first audio),
  // unless the visitor goes on first and the listener reopens the turn (the answer is withdrawn).
  let answer = null;
  const answerCommit = (text) => {
    if (answerMs === null) return;
    const utt = ev.commits.length;
    answer = clock.setTimeout(() => {
      answer = null;
      ev.voiced.push({ text, at: clock.now() });
      l.setAgentSpeaking(utt, `Answer ${utt}.`);
    }, answerMs);
  };
  // The window reaches the VAD as float samples (x / 32768): the scripted probability is in the first.
  const vad = { probability: async (w) => Math.round(w[0] * 32768) / 1000, reset() {} };
  const l = new mods.Listener({
    options,
    vad,
    stt: fakeStt(mode, clock, chunks, latencyMs),
    clock,
    events: {
      transcript() {},
      commit: (text, m) => {
        ev.commits.push({ text, at: clock.now(), m });
        answerCommit(text);
      },
      reopen: () => {
        if (answer === null) return false;
        clock.clearTimeout(answer);
        answer = null;
        ev.reopened++;
        return true;
      },
      preview: (text) => ev.previews.push({ text, at: clock.now() }),
      pause: () => ev.pause.push(clock.now()),
      resume: () => ev.resume.push(clock.now()),
      interrupt: () => ev.interrupt.push(clock.now()),
    },
  });
  const feed = async (prob, n, chunk = 0) => {
    for (let i = 0; i < n; i++) {
      await clock.advance(32);
      await l.push(windowOf(prob, chunk, i));
    }
  };
  await feed(0.05, 10);
  if (avatar) {
    // The visitor spoke before the avatar answered (a sound the fake hears no word in): the
    // recogniser's answer time is known when the avatar speaks, as in a conversation.
    await feed(0.9, 10);
    await feed(0.05, Math.round(((options.maxEndpointingMs ?? 6000) + 1500) / 32));
    l.setAgentSpeaking(1, avatar);
    await feed(0.05, 32);
  }
  const ends = [];
  let startedAt = null;
  for (let i = 0; i < chunks.length; i++) {
    startedAt ??= clock.now();
    await feed(0.9, chunks[i].windows, i + 1);
    ends.push(clock.now());
    if (i < chunks.length - 1) await feed(0.05, Math.round(script.pauses[i] / 32));
  }
  await feed(0.05, Math.round(((options.maxEndpointingMs ?? 6000) + 1500) / 32));
  l.close();
  return { ev, startedAt, end: ends.at(-1), ends, full: chunks.map((c) => c.text).join(' ') };
}

// ─── the utterances ───

/** [words before the pause, words after it, kind]. */
const PAUSED = [
  ['I would like a coffee and', 'a slice of cake please', 'conjunction'],
  ['we arrived yesterday but', 'our room was not ready', 'conjunction'],
  ['can you check my order because', 'it has not arrived yet', 'conjunction'],
  ['I called last week so', 'I am calling again', 'conjunction'],
  ['I can come on Monday or', 'maybe on Tuesday', 'conjunction'],
  ['the parcel was damaged when', 'it was delivered', 'conjunction'],
  ['I will pay by card if', 'that is okay', 'conjunction'],
  ['I need a table for two and', 'a high chair for the baby', 'conjunction'],
  ['my order number is um', 'four five six seven', 'filler'],
  ['I am looking for uh', 'a blue jacket', 'filler'],
  ['the problem is um', 'the screen is broken', 'filler'],
  ['we want to um', 'change the date', 'filler'],
  ['so uh', 'what time do you close', 'filler'],
  ['um', 'can I speak to someone', 'filler'],
  ['I think er', 'it was last Tuesday', 'filler'],
  ['well um', 'I am not sure yet', 'filler'],
  ['I would like to fly to', 'Paris next week', 'preposition'],
  ['I have a problem with', 'my account', 'preposition'],
  ['can I pay with', 'my phone', 'preposition'],
  ['I am calling about', 'my delivery', 'preposition'],
  ['is there a bus from', 'the station to the museum', 'preposition'],
  ['I want to speak to', 'the manager', 'preposition'],
  ['the tickets are for', 'two adults and a child', 'preposition'],
  ['I bought it in', 'your shop on Main Street', 'preposition'],
  ['can you send me the', 'invoice again', 'article'],
  ['I would like a', 'window seat', 'article'],
  ['please cancel my', 'booking for Friday', 'article'],
  ['what is the price of the', 'large pizza', 'article'],
  ['I lost my', 'wallet on the bus', 'article'],
  ['do you have a', 'room for tonight', 'article'],
  ['I need your', 'help with my order', 'article'],
  ['we are looking for an', 'apartment near the centre', 'article'],
  ['my name is', 'John Smith', 'clause'],
  ['I want to', 'change my address', 'clause'],
  ['I would like', 'two tickets please', 'clause'],
  ['I was wondering', 'if you are open on Sunday', 'clause'],
  ['let me think', 'maybe next Friday', 'clause'],
  ['the address is', 'twelve High Street', 'clause'],
  ['I need', 'to book a taxi', 'clause'],
  ['what I mean is', 'the order is late', 'clause'],
  ['I would like a ticket', 'for tomorrow morning', 'complete-so-far'],
  ['is there a guided tour', 'in French', 'complete-so-far'],
  ['I want to cancel my order', 'from last week', 'complete-so-far'],
  ['can you help me', 'with my password', 'complete-so-far'],
  ['I went to the shop', 'and bought some milk', 'complete-so-far'],
  ['what time do you open', 'on Sunday', 'complete-so-far'],
];
/** 300–900 ms, spread over the set. */
const pauseOf = (i) => 300 + ((i * 37) % 61) * 10;

const SHORT = ['yes', 'no thanks', "that's all", 'okay', 'sure', 'yes please', 'no', 'thank you'];
const COMPLETE = [...IN_DOMAIN, ...GENERAL].map(plain).concat(SHORT);

const AVATAR_SAYS = 'The museum opens at nine and closes at five every day except Monday.';
/** Over the avatar: [what the recogniser makes of it, ms of sound]. '' is a cough or a laugh it hears no word in. */
const BACKCHANNELS = [['mm-hm', 350], ['yeah', 300], ['okay', 350], ['right', 300], ['uh-huh', 400], ['I see', 450], ['got it', 400], ['oh wow', 450], ['sure', 300], ['haha', 500], ['', 300], ['', 600], ['hmm', 300], ['yes', 250], ['oh no', 400], ['mhm', 300], ['right right', 550], ['okay okay', 600], ['exactly', 450], ['cool', 300]];
const INTERRUPTIONS = [['wait', 300], ['stop', 300], ['hold on', 400], ['no I meant Tuesday', 900], ['sorry that is not what I asked', 1400], ['excuse me', 450], ['wait a second', 600], ['stop please', 500], ['hang on', 400], ['no', 250], ['actually no', 500], ['just a moment', 600]];

/**
 * Questions and requests said over the avatar that must take the turn (interrupt it): not heard as a
 * backchannel by a model biased toward backchannels (ADR 107). None is in the conversation corpus
 * word for word; not tuned to the recogniser.
 */
const QUESTIONS_OVER_AVATAR = ['what does the ticket cost', 'can I pay by card', 'is the garden open in winter', 'how do I get to the station', 'tell me about the second floor', 'which room has the paintings'];

async function transcripts(mods) {
  const out = {};
  for (const mode of ['batch', 'stream']) {
    for (const rule of ['hanging-words', 'rules']) {
      const options = { ...mods.TURN_DEFAULTS, endOfTurn: rule };
      // Mid-sentence pauses.
      const cut = [];
      const byKind = {};
      for (let i = 0; i < PAUSED.length; i++) {
        const [a, b, kind] = PAUSED[i];
        const r = await runScript(mods, options, mode, { chunks: [{ text: a }, { text: b }], pauses: [pauseOf(i)] });
        const first = r.ev.commits[0];
        const falseCut = !first || norm(first.text) !== norm(r.full);
        byKind[kind] ??= { n: 0, cut: 0 };
        byKind[kind].n++;
        if (falseCut) {
          byKind[kind].cut++;
          cut.push({ said: `${a} … (${pauseOf(i)} ms) … ${b}`, committed: first?.text ?? null });
        }
      }
      // Complete utterances.
      const delays = [];
      const previews = { turns: 0, previewed: 0, reused: 0, headStartMs: [] };
      for (const text of COMPLETE) {
        const r = await runScript(mods, options, mode, { chunks: [{ text }], pauses: [] });
        const c = r.ev.commits[0];
        if (!c) continue;
        delays.push(c.at - r.end);
        previews.turns++;
        const p = r.ev.previews.filter((x) => x.at <= c.at);
        const last = p.at(-1);
        if (p.some((x) => x.text !== null)) previews.previewed++;
        if (last?.text && norm(last.text) === norm(c.text)) {
          previews.reused++;
          previews.headStartMs.push(c.at - p.find((x) => x.text !== null).at);
        }
      }
      out[`${mode}:${rule}`] = {
        falseCutOffs: { n: PAUSED.length, count: cut.length, pct: round((100 * cut.length) / PAUSED.length, 1), byKind, examples: cut.slice(0, 8) },
        completeEndToCommitMs: stats(delays),
        ...(rule === 'rules' && mode === 'stream' ? { preemptive: { ...previews, headStartMs: stats(previews.headStartMs) } } : {}),
      };
    }
  }
  // The floor: where it binds (a fast streaming recogniser), what each choice costs.
  const sweep = [];
  for (const floor of [150, 200, 250, 300, 400]) {
    const options = { ...mods.TURN_DEFAULTS, completeFloorMs: floor };
    let cuts = 0;
    for (let i = 0; i < PAUSED.length; i++) {
      const [a, b] = PAUSED[i];
      const r = await runScript(mods, options, 'stream', { chunks: [{ text: a }, { text: b }], pauses: [pauseOf(i)] });
      if (!r.ev.commits[0] || norm(r.ev.commits[0].text) !== norm(r.full)) cuts++;
    }
    // The short pauses a complete-looking turn may have inside it: 150–400 ms after "I would like a ticket".
    let innerCuts = 0;
    const inner = [150, 200, 250, 300, 350, 400];
    for (const p of inner) {
      const r = await runScript(mods, options, 'stream', { chunks: [{ text: 'I would like a ticket' }, { text: 'for tomorrow morning' }], pauses: [p] });
      if (norm(r.ev.commits[0]?.text ?? '') !== norm(r.full)) innerCuts++;
    }
    const delays = [];
    for (const text of COMPLETE) {
      const r = await runScript(mods, options, 'stream', { chunks: [{ text }], pauses: [] });
      if (r.ev.commits[0]) delays.push(r.ev.commits[0].at - r.end);
    }
    sweep.push({ floorMs: floor, falseCutOffPct: round((100 * cuts) / PAUSED.length, 1), shortPauseCutsOf6: innerCuts, completeEndToCommitMs: stats(delays) });
  }
  out.floorSweepStream = sweep;
  // What the visitor meets (ADR 095, stop 39): a turn committed mid-thought is withdrawn and
  // continued if they go on before its answer is heard. A false cut-off they meet is an answer
  // voiced before their last word. `answerMs`: commit → the answer's first audio (brain + voice):
  // the offline path's echo brain and voice ≈ 100 ms, a cloud LLM 300–800 ms.
  const heard = {};
  for (const mode of ['batch', 'stream']) {
    for (const answerMs of [100, 300, 600]) {
      const options = { ...mods.TURN_DEFAULTS, endOfTurn: 'rules' };
      let cutAtCommit = 0;
      let cutHeard = 0;
      let reopened = 0;
      const examples = [];
      for (let i = 0; i < PAUSED.length; i++) {
        const [a, b] = PAUSED[i];
        const r = await runScript(mods, options, mode, { chunks: [{ text: a }, { text: b }], pauses: [pauseOf(i)] }, null, undefined, answerMs);
        if (!r.ev.commits[0] || norm(r.ev.commits[0].text) !== norm(r.full)) cutAtCommit++;
        reopened += r.ev.reopened;
        const v = r.ev.voiced[0];
        if (!v || norm(v.text) !== norm(r.full)) {
          cutHeard++;
          examples.push(`${a} … (${pauseOf(i)} ms) … ${b} → ${v ? `answered "${v.text}"` : 'never answered'}`);
        }
      }
      // Complete utterances: the answer voiced to the whole text, none withdrawn (nothing follows).
      let completeWrong = 0;
      for (const text of COMPLETE) {
        const r = await runScript(mods, options, mode, { chunks: [{ text }], pauses: [] }, null, undefined, answerMs);
        if (r.ev.reopened || norm(r.ev.voiced[0]?.text ?? '') !== norm(text)) {
          completeWrong++;
          examples.push(`complete: "${text}" → ${r.ev.voiced[0] ? `answered "${r.ev.voiced[0].text}"` : 'never answered'}${r.ev.reopened ? ' (continued)' : ''}`);
        }
      }
      heard[`${mode}:rules:answer ${answerMs} ms`] = { n: PAUSED.length, cutAtCommit, continued: reopened, cutHeard, pct: round((100 * cutHeard) / PAUSED.length, 1), completeNotAnsweredWhole: completeWrong, examples: examples.slice(0, 12) };
    }
  }
  out.falseCutOffsHeard = heard;
  Object.assign(out, await overAvatar(mods));
  return out;
}

/**
 * Over the avatar (ADR 095, ADR 104): backchannels must not stop it (goes on: never held, or resumed
 * within 300 ms of the end of the sound), real interruptions must (held within 300 ms of their start,
 * interrupted, never resumed in between). Per recogniser mode and answer time, per decision:
 * `recogniser` (held until the recogniser has answered: the rule before ADR 104) and the early
 * decisions (a short burst resumes before the recogniser; its verdict may still stop the avatar).
 */
const DECISIONS = {
  'recogniser (before)': { overlapDecision: 'recogniser' },
  'early, burst ≤ 350 ms': { overlapDecision: 'early', shortBurstMs: 350, verdictBudgetMs: 0 },
  'early, burst ≤ 450 ms': { overlapDecision: 'early', shortBurstMs: 450, verdictBudgetMs: 0 },
  'early, burst ≤ 650 ms': { overlapDecision: 'early', shortBurstMs: 650, verdictBudgetMs: 0 },
  'early, burst ≤ 450 ms, resumed after 224 ms of pause': { overlapDecision: 'early', shortBurstMs: 450, resumeAfterMs: 224, verdictBudgetMs: 0 },
  'early, burst ≤ 450 ms, a fast recogniser waited for up to 224 ms (after)': { overlapDecision: 'early', shortBurstMs: 450, verdictBudgetMs: 224 },
  'not held for 250 ms, then early ≤ 450 ms': { overlapDecision: 'early', shortBurstMs: 450, holdAfterMs: 250, verdictBudgetMs: 0 },
  'not held for 500 ms (LiveKit min_interruption_duration)': { overlapDecision: 'early', shortBurstMs: 0, holdAfterMs: 500, verdictBudgetMs: 0 },
};
async function overAvatar(mods) {
  const out = {};
  // The batch recogniser idle on a short sound (a guess: not measured, ADR 104), as ADR 068 measured it on a sentence, and loaded (ADR 100).
  const runs = [['batch', 100], ['batch', STT.batch], ['batch', 1000], ['stream', STT.stream]];
  for (const [mode, latencyMs] of runs) {
    for (const [name, decision] of Object.entries(DECISIONS)) {
      if (mode === 'stream' && !name.endsWith('(before)') && !name.endsWith('(after)')) continue;
      const options = { ...mods.TURN_DEFAULTS, ...decision };
      const bc = [];
      for (const [text, ms] of BACKCHANNELS) {
        const r = await runScript(mods, options, mode, { chunks: [{ text, ms }], pauses: [] }, AVATAR_SAYS, latencyMs);
        const resumedAfterMs = r.ev.resume.length ? r.ev.resume.at(-1) - r.end : null;
        const ok = r.ev.interrupt.length === 0 && (r.ev.pause.length === 0 || (resumedAfterMs !== null && resumedAfterMs <= TARGETS.reactMs));
        bc.push({ text: text || '(cough/laugh, no words)', ms, ok, held: r.ev.pause.length > 0, interrupted: r.ev.interrupt.length > 0, resumedAfterMs });
      }
      const ints = [];
      for (const [text, ms] of INTERRUPTIONS) {
        const r = await runScript(mods, options, mode, { chunks: [{ text, ms }], pauses: [] }, AVATAR_SAYS, latencyMs);
        const heldAfterMs = r.ev.pause.length ? r.ev.pause[0] - r.startedAt : null;
        const stoppedAt = r.ev.interrupt[0] ?? null;
        const stoppedAfterEndMs = stoppedAt !== null ? stoppedAt - r.end : null;
        // Stopped: its playback held within 300 ms of the words' start, and never resumed (the interruption confirmed).
        const ok = heldAfterMs !== null && heldAfterMs <= TARGETS.reactMs && stoppedAfterEndMs !== null && r.ev.resume.length === 0;
        // What an early resume (or not holding) costs a real interruption: the avatar's voice heard
        // after the words' start, until it stopped for good (held intervals excluded).
        let playingMs = null;
        if (stoppedAt !== null) {
          const marks = [...r.ev.pause.map((t) => [t, 'pause']), ...r.ev.resume.map((t) => [t, 'resume'])].sort((a, b) => a[0] - b[0]);
          let playing = true;
          let from = r.startedAt;
          playingMs = 0;
          for (const [t, kind] of marks) {
            if (t > stoppedAt) break;
            if (kind === 'pause' && playing) {
              playingMs += t - from;
              playing = false;
            } else if (kind === 'resume' && !playing) {
              from = t;
              playing = true;
            }
          }
          if (playing) playingMs += stoppedAt - from;
        }
        ints.push({ text, ms, ok, stopped: stoppedAt !== null, heldAfterStartMs: heldAfterMs, interruptedAfterEndMs: stoppedAfterEndMs, resumed: r.ev.resume.length > 0, voiceAfterStartMs: playingMs });
      }
      const pct = (xs, f) => round((100 * xs.filter(f).length) / xs.length, 1);
      out[`overAvatar:${mode}:${latencyMs}ms:${name}`] = {
        backchannels: {
          n: bc.length,
          goesOnPct: pct(bc, (x) => x.ok),
          neverHeldPct: pct(bc, (x) => !x.held),
          interrupted: bc.filter((x) => x.interrupted).length,
          resumedAfterEndMs: stats(bc.map((x) => x.resumedAfterMs).filter((x) => x !== null)),
          misses: bc.filter((x) => !x.ok).map((x) => `${x.text} (${x.ms} ms): ${x.interrupted ? 'interrupted' : x.resumedAfterMs === null ? 'never resumed' : `resumed ${x.resumedAfterMs} ms after`}`),
        },
        interruptions: {
          n: ints.length,
          stopsPct: pct(ints, (x) => x.ok),
          stoppedInTheEndPct: pct(ints, (x) => x.stopped),
          resumedBeforeStopped: ints.filter((x) => x.resumed && x.stopped).length,
          heldAfterStartMs: stats(ints.map((x) => x.heldAfterStartMs).filter((x) => x !== null)),
          interruptedAfterEndMs: stats(ints.map((x) => x.interruptedAfterEndMs).filter((x) => x !== null)),
          voiceAfterStartMs: stats(ints.map((x) => x.voiceAfterStartMs).filter((x) => x !== null)),
          misses: ints.filter((x) => !x.ok).map((x) => `${x.text} (${x.ms} ms): ${!x.stopped ? 'never stopped' : x.resumed ? `resumed, stopped ${x.interruptedAfterEndMs} ms after its end, voice ${x.voiceAfterStartMs} ms after its start` : `held ${x.heldAfterStartMs} ms after its start`}`),
        },
      };
    }
  }
  return out;
}

/**
 * What espeak-ng is given for a sound it would otherwise spell out. It reads "mhm" and "mm-hm" as
 * letters — "em aitch em", `espeak-ng -x mhm` prints ",Em,eItS'Em" — 1.0–1.2 s at 160 wpm, which no
 * visitor says (before stop 42 the bench did, and pocketsphinx heard "elite you", "in the queue").
 * In espeak's phoneme notation [[m-'hm-]] is the hum a person makes: two syllabic m's, 0.45–0.75 s.
 */
const ESPEAK_SAYS = { 'mm-hm': "[[m-'hm-]]", mhm: "[[m-'hm-]]" };

/** espeak-ng's speech of `text` at 16 kHz (its 22050 Hz resampled linearly), or null without espeak-ng. */
function espeak16k(text, wordsPerMinute) {
  let wav;
  try {
    wav = execFileSync('espeak-ng', ['-v', 'en-us', '-s', String(wordsPerMinute), '--stdout', ESPEAK_SAYS[text] ?? text]);
  } catch {
    return null;
  }
  const rate = wav.readUInt32LE(24);
  const at = wav.indexOf('data', 12) + 8;
  const bytes = wav.subarray(at, at + ((wav.length - at) & ~1));
  return resample16k(new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), rate);
}
function resample16k(pcm, rate) {
  if (rate === 16_000) return pcm;
  const n = Math.floor((pcm.length * 16_000) / rate);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const x = (i * rate) / 16_000;
    const j = Math.floor(x);
    const f = x - j;
    out[i] = Math.round((pcm[j] ?? 0) * (1 - f) + (pcm[j + 1] ?? pcm[j] ?? 0) * f);
  }
  return out;
}
/** ms between the first and the last 10 ms of the sound above −40 dBFS (what a level meter calls the sound). */
function soundMs(pcm) {
  const step = 160;
  let first = -1;
  let last = -1;
  for (let at = 0; at + step <= pcm.length; at += step) {
    let sum = 0;
    for (let i = at; i < at + step; i++) sum += pcm[i] * pcm[i];
    if (Math.sqrt(sum / step) / 32768 > 0.01) {
      if (first < 0) first = at;
      last = at + step;
    }
  }
  return first < 0 ? 0 : round(((last - first) * 1000) / 16_000);
}

/**
 * The same words said by synthetic voices (espeak-ng as the e2e says them; the offline voice), through
 * Silero and the built Listener over the avatar (a recogniser that never answers): the voice the
 * Listener counts for each (`speechMsSoFar`, the unit of `shortBurstMs`) against the sound's length,
 * and whether the early decision resumed the avatar before the recogniser. Calibrates the scripted
 * durations above (which have no VAD tail); no denoiser (RNNoise may shorten or lengthen them).
 */
async function syntheticVoiced(mods) {
  const vadModel = await mods.loadSileroVad();
  let voice = null;
  try {
    voice = mods.createOfflineVoice ? mods.createOfflineVoice() : null;
    await voice?.warm();
  } catch {
    voice = null;
  }
  const out = {};
  try {
    const words = [...BACKCHANNELS.filter(([t]) => t).map(([t]) => ['backchannel', t]), ...INTERRUPTIONS.map(([t]) => ['stop', t])];
    const voices = {
      'espeak-ng 160 wpm': (t) => espeak16k(t, 160),
      'espeak-ng 240 wpm': (t) => espeak16k(t, 240),
      ...(voice ? { 'offline voice': async (t) => { const s = await voice.synthesize(t); return resample16k(s.pcm, s.sampleRate); } } : {}),
    };
    for (const [vname, say] of Object.entries(voices)) {
      const rows = [];
      for (const [kind, text] of words) {
        const pcm = await say(text);
        if (!pcm) continue;
        const clock = new FakeClock();
        const ev = { pause: 0, resume: 0 };
        const never = { provider: 'never', mode: 'batch', async open() { return { push() {}, finalize: () => new Promise(() => {}), reset() {}, close() {} }; } };
        const stream = vadModel.stream();
        const l = new mods.Listener({ options: mods.TURN_DEFAULTS, vad: stream, stt: never, clock, events: { transcript() {}, commit() {}, pause: () => ev.pause++, resume: () => ev.resume++, interrupt() {} } });
        l.setAgentSpeaking(1, AVATAR_SAYS);
        clock.t += 1000;
        await l.push(new Int16Array(4800));
        await l.push(pcm);
        await l.push(new Int16Array(9600));
        rows.push({ kind, text, soundMs: soundMs(pcm), voicedMs: round(l.speechMsSoFar), held: ev.pause > 0, resumedEarly: ev.resume > 0 });
        l.close();
      }
      const of = (kind) => rows.filter((r) => r.kind === kind && r.held);
      const bc = of('backchannel');
      const st = of('stop');
      out[vname] = {
        backchannels: { n: bc.length, resumedEarlyPct: bc.length ? round((100 * bc.filter((r) => r.resumedEarly).length) / bc.length, 1) : null, voicedMs: stats(bc.map((r) => r.voicedMs)), soundMs: stats(bc.map((r) => r.soundMs)) },
        stops: { n: st.length, resumedEarlyPct: st.length ? round((100 * st.filter((r) => r.resumedEarly).length) / st.length, 1) : null, voicedMs: stats(st.map((r) => r.voicedMs)), soundMs: stats(st.map((r) => r.soundMs)) },
        rows: rows.map((r) => `${r.kind} "${r.text}": sound ${r.soundMs} ms, voiced ${r.voicedMs} ms, ${!r.held ? 'not held' : r.resumedEarly ? 'resumed early' : 'held for the recogniser'}`),
      };
    }
  } finally {
    await voice?.close();
    await vadModel.close();
  }
  return out;
}

/** bench/conversation.mjs's offline path (real audio, Silero, pocketsphinx, the offline voice), per rule. */
async function offlinePath() {
  const conv = await import('./conversation.mjs');
  if (typeof conv.offlineFirstAudio !== 'function') return { skipped: 'conversation.mjs exports no offlineFirstAudio' };
  // BENCH_TURNS=stream: only the rules with each recogniser (batch, streaming), not the rule before issue 29.
  const onlyStream = process.env.BENCH_TURNS === 'stream';
  const r = await conv.offlineFirstAudio({ ...(onlyStream ? {} : { 'hanging-words': { endOfTurn: 'hanging-words' } }), rules: { endOfTurn: 'rules' }, 'rules-stream': { endOfTurn: 'rules', recognizer: 'stream' } });
  if (r.skipped) return r;
  const brief = (x) => (x.skipped ? x : { lastVoicedToFirstAudioMs: x.speechEndToFirstAudioMs, vadModelEndLagMs: x.vadModelEndLagMs, worker: x.worker, missed: x.missed.length, heard: x.heard });
  const within = (x) => !x.skipped && x.speechEndToFirstAudioMs !== null && x.speechEndToFirstAudioMs.p50 <= TARGETS.offlineFirstAudioP50Ms;
  return {
    turnsEach: r.rules.turns,
    ...(onlyStream ? {} : { before: brief(r['hanging-words']) }),
    after: brief(r.rules),
    // The same rules, listening with the streaming recogniser (ADR 106): worker.sttMs is its flush → final text.
    afterStreaming: brief(r['rules-stream']),
    withinTarget: within(r.rules),
    withinTargetStreaming: within(r['rules-stream']),
  };
}

/** Word error rate of these hypotheses against their references (wer.mjs's normalisation, simplified: lower case, words). */
function werOf(pairs) {
  let errors = 0;
  let total = 0;
  for (const { ref, hyp } of pairs) {
    const a = plain(ref).split(' ').filter(Boolean);
    const b = plain(hyp).split(' ').filter(Boolean);
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    errors += d[a.length][b.length];
    total += a.length;
  }
  return round((100 * errors) / total, 1);
}

/**
 * Batch (pocketsphinx_batch) against streaming (python3-pocketsphinx, ADR 106), same run, same
 * audio: 12 of wer.mjs's sentences (6 in-domain, 6 general) said by the offline voice, padded
 * with 0.3 s over a faint floor. Batch: the whole utterance after its end, as the worker asks it.
 * Streaming: fed in 32 ms windows in real time (as the VAD passes them), then ended; timed from
 * the end. Also each decoder's resident memory and CPU seconds per audio second.
 */
async function compareRecognisers() {
  const { findPocketsphinx, createOfflineRecognizer } = await import(dist('providers/stt/offline.js'));
  const { findStreamingPocketsphinx, createStreamingRecognizer } = await import(dist('providers/stt/offline-stream.js'));
  const { createOfflineVoice } = await import(dist('speech/offline-voice.js'));
  const { cpuSeconds, processTree, rssMb, sleep } = await import('./support.mjs');
  const streamInstall = findStreamingPocketsphinx();
  if (!findPocketsphinx() || !streamInstall) return { skipped: 'pocketsphinx or python3-pocketsphinx is not installed' };
  const voice = createOfflineVoice();
  const batch = createOfflineRecognizer();
  const stream = createStreamingRecognizer({ install: streamInstall });
  const keepAlive = setInterval(() => undefined, 1000);
  const sentences = [...IN_DOMAIN.filter((_, i) => i % 5 === 0), ...GENERAL.filter((_, i) => i % 5 === 0)];
  const ours = (comm) => (pid, c) => c === comm && processTree(process.pid).includes(pid);
  try {
    await voice.warm();
    await Promise.all([batch.warm(), stream.warm()]);
    const said = [];
    for (const text of sentences) {
      const s = await voice.synthesize(text, { voice: 'slt', rate: 1 });
      const pcm = new Int16Array(s.pcm.length + 9600);
      pcm.set(s.pcm, 4800);
      let x = 1;
      for (let i = 0; i < pcm.length; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        pcm[i] = Math.max(-32768, Math.min(32767, pcm[i] + ((x >>> 16) % 41) - 20));
      }
      said.push({ text, pcm });
    }
    await batch.transcribe(said[0].pcm);
    await stream.transcribe(said[0].pcm);
    const audioS = said.reduce((n, s) => n + s.pcm.length / 16_000, 0);
    const out = {};
    const batchCpu0 = cpuSeconds(ours('pocketsphinx_ba'));
    const batchTimes = [];
    const batchPairs = [];
    for (const s of said) {
      const t0 = performance.now();
      const hyp = await batch.transcribe(s.pcm);
      batchTimes.push(performance.now() - t0);
      batchPairs.push({ ref: s.text, hyp });
    }
    const batchPids = processTree(process.pid).filter((pid) => ours('pocketsphinx_ba')(pid, readComm(pid)));
    out.batch = { endToFinalMs: stats(batchTimes), werPct: werOf(batchPairs), cpuSecondsPerAudioSecond: round((cpuSeconds(ours('pocketsphinx_ba')) - batchCpu0) / audioS, 3), rssMbPerProcess: round(rssMb(batchPids) / Math.max(1, batchPids.length), 1), heard: batchPairs };
    const streamCpu0 = cpuSeconds(ours('python3'));
    const streamTimes = [];
    const streamPairs = [];
    for (const s of said) {
      const u = stream.begin();
      const t = performance.now();
      for (let at = 0, k = 1; at < s.pcm.length; at += 512, k++) {
        u.push(s.pcm.subarray(at, at + 512));
        const due = t + k * 32 - performance.now();
        if (due > 0) await sleep(due);
      }
      const t0 = performance.now();
      const hyp = (await u.end()).text;
      streamTimes.push(performance.now() - t0);
      streamPairs.push({ ref: s.text, hyp });
    }
    const streamPids = processTree(process.pid).filter((pid) => ours('python3')(pid, readComm(pid)));
    out.streaming = { endToFinalMs: stats(streamTimes), werPct: werOf(streamPairs), cpuSecondsPerAudioSecond: round((cpuSeconds(ours('python3')) - streamCpu0) / audioS, 3), rssMbPerProcess: round(rssMb(streamPids) / Math.max(1, streamPids.length), 1), heard: streamPairs };
    return { sentences: said.length, audioSeconds: round(audioS, 1), loadAverage: (await import('node:os')).loadavg().map((v) => round(v, 1)), ...out };
  } finally {
    clearInterval(keepAlive);
    await batch.close();
    await stream.close();
    await voice.close();
  }
}

function readComm(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return '';
  }
}

/**
 * pocketsphinx's answer time for a short sound and a sentence (the offline voice saying them),
 * each the median of 5, on this machine as loaded now.
 */
async function measureOfflineStt() {
  const { findPocketsphinx, createOfflineRecognizer } = await import(dist('providers/stt/offline.js'));
  const { createOfflineVoice } = await import(dist('speech/offline-voice.js'));
  if (!findPocketsphinx()) return null;
  const voice = createOfflineVoice();
  const rec = createOfflineRecognizer();
  try {
    await voice.warm();
    await rec.warm();
    const out = {};
    for (const [name, text] of [['short', 'mm hm'], ['sentence', 'what time does the museum open on sunday']]) {
      const speech = await voice.synthesize(text);
      const times = [];
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        await rec.transcribe(speech.pcm);
        if (i > 0) times.push(performance.now() - t0);
      }
      out[name] = { audioMs: round((speech.pcm.length * 1000) / speech.sampleRate), sttMs: round(percentile(times, 50)) };
    }
    return out;
  } finally {
    await rec.close();
    await voice.close();
  }
}

export async function run() {
  const mods = { ...(await import(dist('listening/turns.js'))), ...(await import(dist('listening/options.js'))) };
  // BENCH_TURNS=over-avatar-live: the same words said by espeak-ng over a live Conversation's
  // avatar, heard by Silero and the offline recogniser (streaming; BENCH_TURNS_RECOGNISER=batch).
  if (process.env.BENCH_TURNS === 'over-avatar-live') {
    const { overAvatarLive } = await import('./conversation.mjs');
    // BENCH_TURNS_WPM=240: one rate only.
    const rates = (process.env.BENCH_TURNS_WPM ?? '160,240').split(',').map(Number);
    const voices = Object.fromEntries(rates.map((wpm) => [`espeak-ng ${wpm} wpm`, (t) => espeak16k(t, wpm)]));
    const recognizer = process.env.BENCH_TURNS_RECOGNISER === 'batch' ? 'batch' : 'stream';
    // BENCH_TURNS_OVER_MODEL: the over-the-avatar model's weights to compare (ADR 107; "off" = the generic model alone, the before).
    const weights = (process.env.BENCH_TURNS_OVER_MODEL ?? 'off').split(',').map((w) => (w === 'off' ? null : Number(w)));
    // BENCH_TURNS_SOUNDS_LIKE: misheard stop requests heard by their sound (ADR 109) off (the before), on, or both.
    const soundsLike = (process.env.BENCH_TURNS_SOUNDS_LIKE ?? 'off,on').split(',').map((v) => v === 'on');
    const overAvatarLiveByModel = {};
    for (const w of weights) {
      for (const sl of soundsLike) {
        const name = `${w === null ? 'generic model' : `over-the-avatar model λ ${w}`}${sl ? ', stop requests by sound' : ''}`;
        overAvatarLiveByModel[name] = await overAvatarLive({ voices, backchannels: BACKCHANNELS.map(([t]) => t).filter(Boolean), interruptions: INTERRUPTIONS.map(([t]) => t), questions: QUESTIONS_OVER_AVATAR, recognizer, reactMs: TARGETS.reactMs, overAvatarWeight: w, soundsLike: sl });
      }
    }
    return { turns: { targets: TARGETS, recognizer, overAvatarLive: overAvatarLiveByModel, leftOut: 'coughs and laughs (no synthetic sound for them), noise suppression and echo (off), a page playing the voice (the avatar is "heard" from the audio sent)' } };
  }
  // BENCH_TURNS=over-avatar: only the backchannels and interruptions over the avatar (fake clock, no audio, no recogniser).
  if (process.env.BENCH_TURNS === 'over-avatar') {
    const voiceMods = { ...mods, ...(await import(dist('listening/vad.js'))), ...(await import(dist('speech/offline-voice.js'))) };
    return { turns: { targets: TARGETS, sttMs: STT, wordMs: WORD_MS, overAvatar: await overAvatar(mods), overAvatarSyntheticVoices: await syntheticVoiced(voiceMods) } };
  }
  // Measured for the record only: on a shared machine its figures swing with the load, so the fake keeps ADR 068's 227 ms.
  const offlineStt = await measureOfflineStt();
  const result = { targets: TARGETS, sttMs: STT, offlineSttMeasuredNow: offlineStt ?? 'pocketsphinx not installed', wordMs: WORD_MS, ...(process.env.BENCH_TURNS === 'stream' ? {} : { transcripts: await transcripts(mods) }) };
  if (process.env.BENCH_TURNS !== 'transcripts') {
    const os = await import('node:os');
    result.loadAverageBefore = os.loadavg().map((v) => round(v, 1));
    result.recognisers = await compareRecognisers();
    result.offline = await offlinePath();
    result.loadAverageAfter = os.loadavg().map((v) => round(v, 1));
  }
  return { turns: result };
}
