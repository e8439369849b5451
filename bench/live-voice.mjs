// The avatar's voice: time from the brain's first token to the first audio sample out of the
// voice pipeline (chunker → TTS → trim → frames), over the built worker code.
// - offline: the offline voice (flite.wasm in its worker thread), warmed as the worker warms it;
// - provider: the real ElevenLabs client (guarded fetch, NDJSON, alignment → visemes) against
//   its local fake, which answers 100 ms after the request; "overhead" = measured − 100 ms.
// The brain is simulated: its first token is a complete clause ("Of course, "), the rest streams
// at one token per 20 ms, so what is measured is the pipeline's share, not the model's pace.
// Also: flite's synthesis time per sentence and its real-time factor.
// Used by `npm run bench -- live-voice` (the lead hooks it as `voice`).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { ownCpuSeconds, percentile, root, round } from './support.mjs';

const PROVIDER_DELAY_MS = 100;
const TARGET_OVERHEAD_P95_MS = 50;

const dist = (p) => pathToFileURL(path.join(root, 'packages/worker/dist', p)).href;

/** This process's CPU time (every thread), ms. */
const cpuMs = () => ownCpuSeconds() * 1000;

const stats = (values) => ({ p50: round(percentile(values, 50)), p95: round(percentile(values, 95)), max: round(Math.max(...values)) });

const SENTENCES = [
  'Of course, the museum opens at nine and closes at five every day except Monday.',
  'Of course, tickets are sold at the door and online, and children under twelve enter for free.',
  'Of course, the modern art collection is on the second floor, next to the café.',
  'Of course, guided tours start every hour from the main hall and last about forty minutes.',
  'Of course, you can leave your coat and bag in the cloakroom near the entrance.',
];

/** One turn: tokens pushed like a streaming model; resolves with the pipeline's metrics. */
async function turn(pipeline, text, utt) {
  const tokens = text.match(/\S+\s*/g);
  const first = `${tokens.shift()}${tokens.shift()}`; // "Of course, "
  let firstAudio = null;
  const t = pipeline.startTurn({ utt, onEvent: (ev) => ev.type === 'audio' && firstAudio === null && (firstAudio = performance.now()) });
  const t0 = performance.now();
  t.push(first);
  for (const tok of tokens) {
    await new Promise((r) => setTimeout(r, 20));
    t.push(tok);
  }
  t.end();
  const m = await t.done;
  if (firstAudio === null) throw new Error(`no audio for ${JSON.stringify(text)}`);
  return { firstAudioMs: firstAudio - t0, metrics: m };
}

async function measurePipeline(pipeline, { turns, warmup }) {
  const firstAudio = [];
  const synthesis = [];
  for (let i = 0; i < warmup + turns; i++) {
    const { firstAudioMs, metrics } = await turn(pipeline, SENTENCES[i % SENTENCES.length], i);
    if (i < warmup) continue;
    firstAudio.push(firstAudioMs);
    synthesis.push(metrics.synthesisMs[0]);
  }
  return { firstAudio, synthesis };
}

export async function measureVoice({ turns = 40, warmup = 5 } = {}) {
  const { createSpeechPipeline } = await import(dist('speech/pipeline.js'));
  const { createOfflineVoice, createOfflineTts } = await import(dist('speech/offline-voice.js'));
  const { createElevenLabsTts } = await import(dist('providers/tts/elevenlabs.js'));
  const { createGuardedFetch } = await import('@persona/net');
  const { startFakeElevenLabs, ELEVENLABS_KEY } = await tsImport(path.join(root, 'packages/worker/src/test/fake-tts.ts'), import.meta.url);

  const out = { turns, providerDelayMs: PROVIDER_DELAY_MS };

  // Offline voice.
  const voice = createOfflineVoice();
  try {
    const t0 = performance.now();
    await voice.warm();
    out.offlineWarmMs = round(performance.now() - t0);
    const offline = await measurePipeline(createSpeechPipeline({ tts: createOfflineTts(voice) }), { turns, warmup });
    out.offline = { firstTokenToFirstAudioMs: stats(offline.firstAudio), firstPieceSynthesisMs: stats(offline.synthesis) };
    // flite alone, whole sentences.
    const per = [];
    const rtf = [];
    let cpu0 = 0;
    for (let i = 0; i < warmup + turns; i++) {
      const s = SENTENCES[i % SENTENCES.length];
      if (i === warmup) cpu0 = cpuMs();
      const a = performance.now();
      const speech = await voice.synthesize(s);
      const ms = performance.now() - a;
      if (i < warmup) continue;
      per.push(ms);
      rtf.push(ms / ((speech.pcm.length * 1000) / speech.sampleRate));
    }
    // What the thread does between two sentences (making ready for the next one) is work too: the
    // process's CPU over the loop, all threads, per sentence.
    await new Promise((resolve) => setTimeout(resolve, 200));
    out.flite = { synthesisPerSentenceMs: stats(per), realTimeFactor: stats(rtf).p50, cpuPerSentenceMs: round((cpuMs() - cpu0) / turns) };
  } finally {
    await voice.close();
  }

  // A provider answering after 100 ms (the real ElevenLabs client against its fake).
  const fake = await startFakeElevenLabs();
  const fetch = createGuardedFetch({ allowPrivate: true });
  try {
    fake.knobs = { headersDelayMs: PROVIDER_DELAY_MS };
    const tts = createElevenLabsTts({ apiKey: ELEVENLABS_KEY, voiceId: 'bench', baseUrl: fake.origin, fetch });
    const provider = await measurePipeline(createSpeechPipeline({ tts }), { turns, warmup });
    const overhead = provider.firstAudio.map((ms) => ms - PROVIDER_DELAY_MS);
    out.provider = { firstTokenToFirstAudioMs: stats(provider.firstAudio), overheadMs: stats(overhead) };
  } finally {
    fetch.close();
    await fake.close();
  }
  out.targetOverheadP95Ms = TARGET_OVERHEAD_P95_MS;
  out.withinTarget = out.provider.overheadMs.p95 <= TARGET_OVERHEAD_P95_MS;
  return out;
}

export async function run() {
  return { voice: await measureVoice() };
}
