// Word error rate of the offline recogniser (issue 29, "Measure first"): `npm run bench -- wer`.
// Never part of the test suite.
//
// 60 sentences (30 in-domain for a customer-service avatar, 30 general conversational English) are
// spoken by synthetic voices — espeak-ng (en-us, en-gb, en+f3, en+m3) at 160 and 220 words/min,
// and the project's offline voice (flite.wasm, voices slt and rms) at rate 1 and 1.35 — resampled
// to 16 kHz mono by the worker's own resampler, padded with 0.3 s of silence either side (the VAD
// cuts an utterance with some of its surroundings), with pink noise at 10 dB SNR
// (generated here, seeded), and over a quiet microphone floor (pink noise at 40 dB SNR); also with
// babble and street noise at 10 dB SNR (bench/noise.mjs, synthesised), and every condition
// again through the worker's noise suppressor (RNNoise, ADR 096). Each utterance goes through the built worker's offline recogniser
// (`createOfflineRecognizer`, the same resident pocketsphinx_batch and arguments a visitor's turn
// uses), one at a time.
//
// WER = word-level Levenshtein (substitutions + deletions + insertions) / reference words, after
// normalisation: lower case, digits spelt out as words, apostrophes kept inside words, every other
// punctuation mark removed. Figures per voice × rate × noise, per half, overall, and the processing
// time per second of audio (real-time factor).
//
// Cloud recognisers (Deepgram, Azure, Google…) are NOT measured: in this environment their clients
// only run against local fakes, and a fake's transcript is not a WER figure.
//
// Human speech: Debian's `pocketsphinx-testdata` (BSD-2, PocketSphinx's own test data) ships ten
// transcribed recordings of people — five sentences of a LibriVox reading of "Sense and
// Sensibility" (one female reader, public domain) and five card names said by a male speaker
// ("eight of spades four of clubs seven of hearts"). Each goes through every model and condition
// as the synthetic sentences do (the recording as it is, the condition's noise over it), scored
// apart from the two halves. They are the only recordings of people in the Debian or npm packages
// found (92 words: each word is ~1.1 points; LibriVox audiobooks are a common acoustic training
// source, so the reading may have been heard by en-us's training). Without the package the rows
// are left out (`apt-get install pocketsphinx-testdata`). WER_HUMAN_ONLY=1: only these rows.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { noiseKinds } from './noise.mjs';
import { round, workerDist } from './support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export const CLOUD_NOTE = 'Cloud recognisers are not measured: their clients only run against local fakes here, and a fake\'s transcript is not a WER figure.';

export const IN_DOMAIN = [
  'Hello, how are you today?',
  'Good morning, I would like some help please.',
  'What is your name?',
  'Who am I talking to?',
  'What time do you open tomorrow?',
  'Are you open on Sunday?',
  'What are your opening hours on Saturday?',
  'When do you close tonight?',
  'How much does it cost?',
  'What is the price of the blue shirt?',
  'Is there a discount for students?',
  'How much is delivery to my house?',
  'Where is my order?',
  'I want to cancel my order.',
  'Can I change the address on my order?',
  'My order number is four five six seven.',
  'When will my package arrive?',
  'I would like to return these shoes.',
  'Can I speak to a manager please?',
  'What is the weather like in London today?',
  'Will it rain in Paris tomorrow?',
  'How hot is it in New York right now?',
  'Is it going to snow in Chicago this weekend?',
  'Do you accept credit cards?',
  'Can I pay with cash?',
  'Thank you very much for your help.',
  'Goodbye and have a nice day.',
  'Can you help me find a product?',
  'Do you have this in a larger size?',
  'I have a problem with my account.',
];

export const GENERAL = [
  'I went to the park with my sister yesterday.',
  'The children are playing football in the garden.',
  'She bought a new car last week.',
  'We should have dinner together some time.',
  'I think it is a good idea.',
  'My brother lives in a small town near the sea.',
  'The meeting has been moved to next Tuesday.',
  'Could you turn the music down a little?',
  'I have never been to Australia.',
  'It was the best film I have seen this year.',
  'He forgot his keys at the office again.',
  'Let me know if you need anything else.',
  'The train was late because of the snow.',
  'I usually drink coffee in the morning.',
  'They are going on holiday in August.',
  'What do you want to do this evening?',
  'I am reading a book about the history of music.',
  'The dog ran across the road after the ball.',
  'We need to buy some bread and milk.',
  'My phone battery is almost empty.',
  'Do you remember where we parked the car?',
  'The weather has been really nice lately.',
  'I will call you back in ten minutes.',
  'She has been learning to play the piano.',
  'It is too cold to go swimming today.',
  'Our neighbours are very friendly people.',
  'I lost my wallet on the bus this morning.',
  'Please close the window before you leave.',
  'The shop on the corner sells fresh fruit.',
  'I am looking forward to the weekend.',
];

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** 0–999,999 as words ("twenty one", no "and"); larger numbers digit by digit. */
export function numberWords(n) {
  if (n < 20) return ONES[n];
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? ` ${ONES[n % 10]}` : ''}`;
  if (n < 1000) return `${ONES[Math.floor(n / 100)]} hundred${n % 100 ? ` ${numberWords(n % 100)}` : ''}`;
  if (n < 1_000_000) return `${numberWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${numberWords(n % 1000)}` : ''}`;
  return String(n).split('').map((d) => ONES[Number(d)]).join(' ');
}

/** Titles the dictionary spells short ("mr") where a transcript spells them out ("mister"). */
const SPELLED = new Map([
  ['mr', 'mister'],
  ['mrs', 'missus'],
  ['dr', 'doctor'],
]);

/** Lower case, digits as words, apostrophes only inside words, no other punctuation, titles spelled out → words. */
export function normalise(text) {
  return text
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/\d+/g, (d) => ` ${numberWords(Number(d))} `)
    .replace(/[^a-z0-9' ]+/g, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => SPELLED.get(w) ?? w);
}

const TESTDATA = '/usr/share/pocketsphinx/test/data';
/** The transcribed human recordings of Debian's pocketsphinx-testdata: [{ id, set, file, text }] ([] without the package). */
export function humanRecordings(dir = TESTDATA) {
  const sets = [
    { set: 'librivox', transcription: 'librivox/transcription', file: (id) => `librivox/${id}.wav` },
    { set: 'cards', transcription: 'cards/cards.transcription', file: (id) => `cards/${id}.wav` },
  ];
  const out = [];
  for (const s of sets) {
    let lines;
    try {
      lines = fs.readFileSync(path.join(dir, s.transcription), 'utf8').split('\n');
    } catch {
      continue;
    }
    for (const line of lines) {
      const m = /^<s>\s*(.*?)\s*<\/s>\s*\(([\w.-]+)\)\s*$/.exec(line.trim());
      if (m && fs.existsSync(path.join(dir, s.file(m[2])))) out.push({ id: m[2], set: s.set, file: path.join(dir, s.file(m[2])), text: m[1] });
    }
  }
  return out;
}

/** Word-level edit distance: substitutions + deletions + insertions. */
export function editDistance(ref, hyp) {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[hyp.length];
}

/** Seeded PRNG (mulberry32), so every run adds the same noise. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pink noise (Paul Kellet's filter over white noise), unit RMS. */
function pinkNoise(length, seed) {
  const r = rng(seed);
  const out = new Float64Array(length);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0;
  for (let i = 0; i < length; i++) {
    const w = r() * 2 - 1;
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
  }
  const rms = Math.sqrt(out.reduce((s, v) => s + v * v, 0) / length) || 1;
  for (let i = 0; i < length; i++) out[i] /= rms;
  return out;
}

/** RMS of the speech (samples above 1 % of full scale, so padding and pauses do not dilute it). */
function speechRms(pcm) {
  let sum = 0;
  let n = 0;
  for (const v of pcm) {
    if (Math.abs(v) < 328) continue;
    sum += v * v;
    n++;
  }
  return n ? Math.sqrt(sum / n) : 0;
}

export function addNoise(pcm, snrDb, seed) {
  const noise = pinkNoise(pcm.length, seed);
  const gain = speechRms(pcm) / 10 ** (snrDb / 20);
  return Int16Array.from(pcm, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + noise[i] * gain))));
}

const PAD = new Int16Array(16_000 * 0.3);
const pad = (pcm) => {
  const out = new Int16Array(pcm.length + 2 * PAD.length);
  out.set(pcm, PAD.length);
  return out;
};

const ESPEAK = [
  { voice: 'en-us', rates: [160, 220] },
  { voice: 'en-gb', rates: [160, 220] },
  { voice: 'en+f3', rates: [160] },
  { voice: 'en+m3', rates: [220] },
];
const FLITE = [
  { voice: 'slt', rates: [1, 1.35] },
  { voice: 'rms', rates: [1] },
];
// "quiet": a microphone's noise floor (pink noise 40 dB under the speech). Digital silence is not
// what a microphone sends, and pocketsphinx misreads espeak-ng's exact-zero gaps ("hello how are
// you today" → "oh how i do" with zeros, right with the floor).
const NOISES = [
  { id: 'quiet-40dB', snrDb: 40 },
  { id: 'pink-10dB', snrDb: 10 },
  // bench/noise.mjs's synthesised rooms (ADR 096): six espeak-ng talkers, traffic (its fan is in
  // the false-turn measure only: a steady noise, the easy case).
  { id: 'babble-10dB', snrDb: 10, kind: 'babble' },
  { id: 'street-10dB', snrDb: 10, kind: 'street' },
];
// Each noisy utterance is heard twice: as it is, and through the worker's noise suppressor
// (RNNoise, listening/denoise.ts; ADR 096), whose state first hears 1 s of the same noise — a
// session's denoiser has been listening to the room before the visitor speaks.
const CONDITIONS = NOISES.flatMap((n) => [
  { ...n, denoise: false },
  { ...n, id: `${n.id}+rnnoise`, denoise: true },
]);
/** Conditions summed into `all` (and `allDenoised`): the ones the figures before ADR 096 had. */
const BASE = ['quiet-40dB', 'pink-10dB'];
// WER_MODE=rotate: sentence i is spoken only by speaker i mod speakers (every noise condition), a
// 9× shorter run with every voice and rate still present — the per-speaker rows then rest on ~7
// sentences each; the per-half and overall figures on all 60. Default: every speaker says every sentence.
const ROTATE = process.env.WER_MODE === 'rotate';
// WER_CONDITIONS=quiet-40dB,pink-10dB: only these conditions (the shared machine's time); default all.
const ONLY_CONDITIONS = process.env.WER_CONDITIONS?.split(',').filter(Boolean);
// WER_STREAM=1 adds the streaming recogniser (ADR 106): generic-stream and adapted-stream, the same
// models and dither, each utterance fed in 32 ms windows as the VAD passes them.
const STREAM = process.env.WER_STREAM === '1';
// WER_HUMAN_ONLY=1: only the human recordings (pocketsphinx-testdata), no synthetic voice.
const HUMAN_ONLY = process.env.WER_HUMAN_ONLY === '1';

export async function run() {
  const audio = await import(workerDist('core/audio.js'));
  const { createOfflineVoice } = await import(workerDist('speech/offline-voice.js'));
  const { createOfflineRecognizer, findPocketsphinx } = await import(workerDist('providers/stt/offline.js'));
  if (!findPocketsphinx()) throw new Error('pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)');
  const espeakOk = spawnSync('espeak-ng', ['--version']).status === 0;

  const sentences = [...IN_DOMAIN.map((text) => ({ text, half: 'in-domain' })), ...GENERAL.map((text) => ({ text, half: 'general' }))];
  const fromWav = (bytes) => {
    const info = audio.parseWavHeader(bytes);
    if (!info) throw new Error('not a WAV file');
    const pcm = audio.firstChannel(audio.bytesToSamples(bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes)), info.channels);
    return info.sampleRate === 16_000 ? pcm : audio.resample(pcm, info.sampleRate, 16_000);
  };

  const flite = createOfflineVoice({ threads: 1 });
  const speakers = [];
  if (espeakOk && !HUMAN_ONLY) {
    for (const { voice, rates } of ESPEAK) {
      for (const rate of rates) {
        speakers.push({
          engine: 'espeak-ng',
          voice,
          rate: `${rate} wpm`,
          speak: async (text) => {
            const r = spawnSync('espeak-ng', ['-v', voice, '-s', String(rate), '--stdout', text], { maxBuffer: 64 << 20 });
            if (r.status !== 0) throw new Error(`espeak-ng failed: ${r.stderr}`);
            return fromWav(new Uint8Array(r.stdout));
          },
        });
      }
    }
  }
  for (const { voice, rates } of HUMAN_ONLY ? [] : FLITE) {
    for (const rate of rates) {
      speakers.push({
        engine: 'flite (offline voice)',
        voice,
        rate: `×${rate}`,
        speak: async (text) => {
          const s = await flite.synthesize(text, { voice, rate });
          return s.sampleRate === 16_000 ? s.pcm : audio.resample(s.pcm, s.sampleRate, 16_000);
        },
      });
    }
  }

  // The people of Debian's pocketsphinx-testdata: one speaker per set, each saying its own
  // recordings (not the 60 sentences); their noise seeds are their own, whatever else runs.
  const human = humanRecordings();
  for (const [k, set] of ['librivox', 'cards'].entries()) {
    const mine = human.filter((h) => h.set === set);
    if (!mine.length) continue;
    speakers.push({
      engine: 'human (pocketsphinx-testdata)',
      voice: set,
      rate: 'recorded',
      seedBase: 50 + k,
      sentences: mine.map((h) => ({ text: h.text, half: 'human', pcm: () => fromWav(new Uint8Array(fs.readFileSync(h.file))) })),
    });
  }
  if (!human.length) console.log('pocketsphinx-testdata is not installed: no human recordings (apt-get install pocketsphinx-testdata).');

  // Two recognisers, each utterance through both in the same run: the generic model (as today)
  // and the model built for the avatar the in-domain half is spoken to (bench/fixtures/wer-avatar.json).
  const { buildLanguageModel, dictionaryWords } = await import(workerDist('providers/stt/language-model.js'));
  const { CONVERSATION_CORPUS } = await import(workerDist('providers/stt/conversation-corpus.js'));
  const install = findPocketsphinx();
  const avatar = JSON.parse(fs.readFileSync(path.join(here, 'fixtures/wer-avatar.json'), 'utf8'));
  const texts = [avatar.wakeUpMessage, avatar.instructions, ...avatar.functions.map((f) => f.replace(/_/g, ' ')), ...avatar.knowledge.flatMap((k) => [k.title, k.text])].map((text) => ({ text, weight: 2 }));
  const built = buildLanguageModel({ texts: [...texts, { text: CONVERSATION_CORPUS }], dictionary: dictionaryWords(fs.readFileSync(install.dict, 'utf8')) });
  const lmFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wer-lm-')), 'avatar.lm');
  fs.writeFileSync(lmFile, built.arpa);
  console.log(`avatar model: ${built.vocabulary} words, n-grams ${built.ngrams.join('/')}, out of the dictionary: ${built.outOfVocabulary.join(' ') || 'none'}`);
  // The worker's own avatar model (ADR 105): the avatar's texts interpolated into the generic model,
  // built by the worker's code (on this thread: the worker builds in a thread of its own, the same
  // bytes) — with the fixture's knowledge base, and without it (what the worker builds for an
  // avatar without one; before ADR 105's second amendment, for every avatar).
  const { buildAvatarModel } = await import(workerDist('providers/stt/avatar-models.js'));
  const vocabulary = { name: avatar.name, wakeUpMessage: avatar.wakeUpMessage, instructions: avatar.instructions, functions: avatar.functions, knowledge: avatar.knowledge };
  const adaptedFile = path.join(path.dirname(lmFile), 'adapted.lm.bin');
  const adaptedNoKbFile = path.join(path.dirname(lmFile), 'adapted-no-kb.lm.bin');
  const built0 = performance.now();
  fs.writeFileSync(adaptedFile, await buildAvatarModel(install, vocabulary));
  const buildMs = performance.now() - built0;
  fs.writeFileSync(adaptedNoKbFile, await buildAvatarModel(install, { ...vocabulary, knowledge: [] }));
  console.log(`adapted model (generic + avatar interpolated): built in ${Math.round(buildMs)} ms, ${fs.statSync(adaptedFile).size} bytes; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const all = {
    generic: () => createOfflineRecognizer(),
    avatar: () => createOfflineRecognizer({ install: { ...install, lm: lmFile } }),
    'best-of': () => null,
    adapted: () => createOfflineRecognizer({ install: { ...install, lm: adaptedFile } }),
    'adapted-no-kb': () => createOfflineRecognizer({ install: { ...install, lm: adaptedNoKbFile } }),
  };
  if (STREAM) {
    const { createStreamingRecognizer, findStreamingPocketsphinx } = await import(workerDist('providers/stt/offline-stream.js'));
    const streamInstall = findStreamingPocketsphinx();
    if (!streamInstall) throw new Error('WER_STREAM=1 but python3-pocketsphinx is not importable (apt-get install python3-pocketsphinx)');
    // WER_STREAM_AFFINITY=1: each voice has a decoder process of its own, as a visitor's session
    // keeps its process (the live cepstral mean then carries from that voice's own last utterance,
    // not from another voice's).
    const affinity = process.env.WER_STREAM_AFFINITY === '1';
    // WER_STREAM_WARMUP=1: a new decoder process first hears a few conversational sentences in the
    // offline voice (not the bench's), so its live cepstral mean starts from speech, not the model's prior.
    const warmText = 'Hello, nice to meet you. I have a quick question about something. Can you help me with this, please?';
    const warmPcm = process.env.WER_STREAM_WARMUP === '1' ? await (async () => {
      const s = await flite.synthesize(warmText, { voice: 'slt', rate: 1 });
      return s.sampleRate === 16_000 ? s.pcm : audio.resample(s.pcm, s.sampleRate, 16_000);
    })() : null;
    const warmUp = async (rec) => {
      if (!warmPcm) return;
      const u = rec.begin();
      for (let at = 0; at < warmPcm.length; at += 512) u.push(warmPcm.subarray(at, at + 512));
      await u.end();
    };
    const streamed = (lm) => {
      const r = createStreamingRecognizer({ install: { ...streamInstall, lm } });
      const shared = warmUp(r);
      const perVoice = new Map();
      const transcribeScored = async (pcm, _signal, voice) => {
        let rec = r;
        await shared;
        if (affinity && voice) {
          if (!perVoice.has(voice)) {
            const own = createStreamingRecognizer({ install: { ...streamInstall, lm } });
            perVoice.set(voice, own);
            await warmUp(own);
          }
          rec = perVoice.get(voice);
        }
        const u = rec.begin();
        for (let at = 0; at < pcm.length; at += 512) u.push(pcm.subarray(at, at + 512));
        return u.end();
      };
      return { ...r, transcribeScored, transcribe: async (pcm) => (await transcribeScored(pcm)).text };
    };
    all['generic-stream'] = () => streamed(install.lm);
    all['adapted-stream'] = () => streamed(adaptedFile);
  }
  // WER_MODELS=generic,adapted: only these (best-of needs generic and avatar).
  const only = process.env.WER_MODELS?.split(',').filter(Boolean);
  const recognizers = Object.fromEntries(Object.entries(all).filter(([m]) => !only || only.includes(m)).map(([m, make]) => [m, make()]));
  // The recogniser's process and pipes are unref'd (the worker's server keeps it alive): so does this.
  const keepAlive = setInterval(() => undefined, 1000);
  for (const r of Object.values(recognizers).filter(Boolean)) {
    await r.warm();
    await r.transcribe(new Int16Array(1600)); // the models are loaded before timing starts
  }

  // The rooms (bench/noise.mjs), two minutes of each, and the worker's noise suppressor.
  const rooms = CONDITIONS.some((c) => c.kind && (!ONLY_CONDITIONS || ONLY_CONDITIONS.includes(c.id))) ? await noiseKinds(120) : {};
  const { loadRnnoise } = await import(workerDist('listening/denoise.js'));
  const rnnoise = await loadRnnoise();
  const WARM = 16_000;
  /** Speech + noise at the condition's SNR (1 s of the same noise before it), through RNNoise when the condition says. */
  const noisy = async (clean, cond, seed) => {
    const len = WARM + clean.length;
    let source;
    if (!cond.kind) source = pinkNoise(len, seed);
    else {
      const room = rooms[cond.kind];
      const at = Math.floor(rng(seed)() * (room.length - len));
      source = room.subarray(at, at + len);
    }
    const gain = speechRms(clean) / 10 ** (cond.snrDb / 20);
    const mixed = Int16Array.from({ length: len }, (_, i) => Math.max(-32768, Math.min(32767, Math.round((i >= WARM ? clean[i - WARM] : 0) + source[i] * gain))));
    if (!cond.denoise) return mixed.subarray(WARM);
    const d = rnnoise.stream();
    const out = await d.process(mixed);
    d.close();
    return out.subarray(WARM);
  };
  const conditions = CONDITIONS.filter((c) => (!c.kind || rooms[c.kind]) && (!ONLY_CONDITIONS || ONLY_CONDITIONS.includes(c.id)));

  const rows = [];
  const utterances = [];
  const timeouts = [];
  try {
    for (const sp of speakers) {
      for (const noise of conditions) {
        const accs = Object.fromEntries(Object.keys(recognizers).map((m) => [m, { 'in-domain': { errors: 0, words: 0 }, general: { errors: 0, words: 0 }, human: { errors: 0, words: 0 }, audioS: 0, procS: 0 }]));
        const synthetic = speakers.filter((x) => !x.sentences);
        for (const [i, s] of (sp.sentences ?? sentences).entries()) {
          if (ROTATE && !sp.sentences && i % synthetic.length !== synthetic.indexOf(sp)) continue;
          // A recording comes with its own silence around the speech; a synthetic one is padded.
          const clean = s.pcm ? s.pcm() : pad(await sp.speak(s.text));
          // The pair (without, with suppression) hears the same noise: they differ only by it.
          const pcm = await noisy(clean, noise, 1 + ((sp.seedBase ?? speakers.indexOf(sp)) * 100 + i) * 10 + NOISES.findIndex((n) => n.snrDb === noise.snrDb && n.kind === noise.kind));
          const ref = normalise(s.text);
          const scored = {};
          for (const model of Object.keys(recognizers)) {
            const acc = accs[model];
            const t0 = performance.now();
            let hyp;
            if (model === 'best-of') {
              if (!scored.generic || !scored.avatar) continue;
              // Both models' hypotheses, the one with the better path score (the time is both decodes'). A
              // heuristic: the scores of two language models are not on one scale.
              hyp = (scored.generic.score >= scored.avatar.score ? scored.generic : scored.avatar).text;
              acc.procS += scored.generic.s + scored.avatar.s;
            } else {
              // A decode past the recogniser's time limit (a loaded machine, a babble the search
              // wanders in) counts as nothing heard — every word deleted — and the run goes on.
              const r = await recognizers[model].transcribeScored(pcm, undefined, `${sp.voice}:${sp.rate}`).catch((err) => {
                timeouts.push(`${model} ${sp.voice} ${sp.rate} ${noise.id}: ${err.message}`);
                return { text: '', score: -Infinity };
              });
              scored[model] = { ...r, s: (performance.now() - t0) / 1000 };
              hyp = r.text;
              acc.procS += scored[model].s;
            }
            acc.audioS += pcm.length / 16_000;
            const errors = editDistance(ref, normalise(hyp));
            acc[s.half].errors += errors;
            acc[s.half].words += ref.length;
            utterances.push({ model, engine: sp.engine, voice: sp.voice, rate: sp.rate, noise: noise.id, half: s.half, ref: s.text, hyp, errors, words: ref.length });
          }
        }
        for (const [model, acc] of Object.entries(accs)) {
          const all = { errors: acc['in-domain'].errors + acc.general.errors, words: acc['in-domain'].words + acc.general.words };
          const row = {
            model,
            engine: sp.engine,
            voice: sp.voice,
            rate: sp.rate,
            noise: noise.id,
            werInDomain: acc['in-domain'].words ? round(acc['in-domain'].errors / acc['in-domain'].words, 3) : null,
            werGeneral: acc.general.words ? round(acc.general.errors / acc.general.words, 3) : null,
            werHuman: acc.human.words ? round(acc.human.errors / acc.human.words, 3) : null,
            wer: all.words ? round(all.errors / all.words, 3) : null,
            audioSeconds: round(acc.audioS, 1),
            rtf: round(acc.procS / acc.audioS, 3),
            _acc: acc,
            _human: Boolean(sp.sentences),
          };
          rows.push(row);
          console.log(`${model.padEnd(8)} ${sp.engine.padEnd(22)} ${sp.voice.padEnd(6)} ${sp.rate.padEnd(8)} ${noise.id.padEnd(10)} ${sp.sentences ? `WER human ${pct(row.werHuman)}` : `WER in-domain ${pct(row.werInDomain)}  general ${pct(row.werGeneral)}  all ${pct(row.wer)}`}  RTF ${row.rtf}`);
        }
      }
    }
  } finally {
    clearInterval(keepAlive);
    for (const r of Object.values(recognizers).filter(Boolean)) await r.close();
    await flite.close();
    await rnnoise.close();
    fs.rmSync(path.dirname(lmFile), { recursive: true, force: true });
  }

  const sum = (filter) => {
    const t = { inD: { e: 0, w: 0 }, gen: { e: 0, w: 0 }, hum: { e: 0, w: 0 }, a: 0, p: 0, ha: 0, hp: 0 };
    for (const r of rows.filter(filter)) {
      if (r._human) {
        t.ha += r._acc.audioS;
        t.hp += r._acc.procS;
      }
      t.inD.e += r._acc['in-domain'].errors;
      t.inD.w += r._acc['in-domain'].words;
      t.gen.e += r._acc.general.errors;
      t.gen.w += r._acc.general.words;
      t.hum.e += r._acc.human.errors;
      t.hum.w += r._acc.human.words;
      if (r._human) continue;
      t.a += r._acc.audioS;
      t.p += r._acc.procS;
    }
    const share = (e, w) => (w ? round(e / w, 3) : null);
    return {
      werInDomain: share(t.inD.e, t.inD.w),
      werGeneral: share(t.gen.e, t.gen.w),
      // The synthetic sentences' WER (in-domain and general); the human recordings apart.
      wer: share(t.inD.e + t.gen.e, t.inD.w + t.gen.w),
      werHuman: share(t.hum.e, t.hum.w),
      // The synthetic sentences' audio and real-time factor (as before the human recordings); theirs apart.
      audioSeconds: round(t.a, 1),
      rtf: t.a ? round(t.p / t.a, 3) : null,
      rtfHuman: t.ha ? round(t.hp / t.ha, 3) : null,
    };
  };
  const overall = Object.fromEntries(
    Object.keys(recognizers).map((m) => [
      m,
      {
        all: sum((r) => r.model === m && BASE.includes(r.noise)),
        allDenoised: sum((r) => r.model === m && BASE.some((b) => r.noise === `${b}+rnnoise`)),
        ...Object.fromEntries(conditions.map((n) => [n.id, sum((r) => r.model === m && r.noise === n.id)])),
      },
    ]),
  );
  // Noise suppression (ADR 096): WER rise over clean speech (quiet-40dB, without suppression) per noise, without and with it.
  const rise = Object.fromEntries(
    Object.entries(overall).map(([m, o]) => [
      m,
      Object.fromEntries(
        NOISES.filter((n) => n.id !== 'quiet-40dB' && o[n.id] && o[`${n.id}+rnnoise`] && o['quiet-40dB']).map((n) => {
          const points = (key, id) => (o[id][key] === null || o['quiet-40dB'][key] === null ? null : round((o[id][key] - o['quiet-40dB'][key]) * 100, 1));
          return [n.id, { without: points('wer', n.id), with: points('wer', `${n.id}+rnnoise`), humanWithout: points('werHuman', n.id), humanWith: points('werHuman', `${n.id}+rnnoise`) }];
        }),
      ),
    ]),
  );
  for (const r of rows) {
    delete r._acc;
    delete r._human;
  }

  console.log('\nrecogniser: offline (pocketsphinx 5); models: generic (en-us), avatar (built for the bench avatar alone), best-of (both, better path score), adapted (the worker\'s: avatar interpolated into generic, ADR 105), adapted-no-kb (the same without the knowledge base)');
  console.log('voice                         rate     noise      in-domain  general  all      human    RTF');
  for (const r of rows) console.log(`${`${r.model} ${r.engine} ${r.voice}`.padEnd(30)}${r.rate.padEnd(9)}${r.noise.padEnd(11)}${pct(r.werInDomain).padEnd(11)}${pct(r.werGeneral).padEnd(9)}${pct(r.wer).padEnd(9)}${pct(r.werHuman).padEnd(9)}${r.rtf}`);
  for (const [m, o] of Object.entries(overall)) for (const [k, v] of Object.entries(o)) console.log(`${`overall ${m} (${k})`.padEnd(50)}${pct(v.werInDomain).padEnd(11)}${pct(v.werGeneral).padEnd(9)}${pct(v.wer).padEnd(9)}${pct(v.werHuman).padEnd(9)}${v.rtf ?? v.rtfHuman}`);
  console.log('\nWER rise over clean speech (points), without → with noise suppression (synthetic; human):');
  for (const [m, r] of Object.entries(rise)) console.log(`  ${m.padEnd(8)} ${Object.entries(r).map(([k, v]) => `${k} ${v.without} → ${v.with}; human ${v.humanWithout} → ${v.humanWith}`).join('   ')}`);
  console.log(`\n${CLOUD_NOTE}`);
  if (!espeakOk) console.log('espeak-ng is not installed: only the offline voice spoke.');

  return {
    recogniser: 'offline (pocketsphinx_batch, -fwdflat no: createOfflineRecognizer from packages/worker/dist) with these models: generic = the en-us model; avatar = a trigram model built from bench/fixtures/wer-avatar.json and the conversation corpus alone (language-model.ts); best-of = generic and avatar decodes, the hypothesis with the better path score; adapted = the worker\'s avatar model (avatar-models.ts buildAvatarModel: the avatar\'s texts and the corpus interpolated into the generic model, ADR 105); adapted-no-kb = the same without the knowledge base (what the worker built before it asked the portal for the knowledge base, ADR 105)',
    cloud: CLOUD_NOTE,
    mode: ROTATE ? 'rotate: sentence i spoken by speaker i mod speakers' : 'full: every speaker says every sentence',
    method: 'WER = word Levenshtein (S+D+I) / reference words after lower-casing, digits as words, punctuation removed, titles spelled out (mr → mister); synthetic speech padded with 0.3 s of silence, the human recordings (pocketsphinx-testdata) as recorded and scored apart (werHuman); noise (pink, or bench/noise.mjs babble/street/fan) at the stated SNR over the speech RMS; "+rnnoise": through the worker\'s noise suppressor; RTF = recognition time / audio seconds, one utterance at a time.',
    sentences: { inDomain: IN_DOMAIN.length, general: GENERAL.length, human: human.map((h) => `${h.set}/${h.id}`) },
    failedDecodes: timeouts,
    noiseSuppression: { target: 'WER at 10 dB SNR rises by ≤ 10 points over clean speech (issue 29)', pointsOverClean: rise, note: 'clean = quiet-40dB without suppression; "with" = the noisy utterance through RNNoise after 1 s of the same noise' },
    overall,
    rows,
    utterances,
  };
}

function pct(x) {
  if (x === null || x === undefined) return '—';
  return `${(x * 100).toFixed(1)} %`;
}
