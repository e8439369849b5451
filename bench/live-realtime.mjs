// Speech to speech (issue 15): `npm run bench -- realtime`, on the built server as `npm start` runs
// it (PGlite, its embedded worker; ALLOW_PRIVATE_URLS so the avatar may use the provider below),
// with a SpeechToSpeech avatar whose realtime URL is the local fake of OpenAI Realtime (the real
// client, wire protocol and socket; the fake runs in this process).
// 1. Worker latency, BENCH_TURNS (default 40) typed turns after 5 of warm-up: the moment the fake
//    provider sent an answer's first audio delta → the moment the page's socket (a ws client in
//    this process, the same clock) received that answer's first audio frame. That frame is
//    audible (the fake's voice is a tone from its first sample): this is all the worker adds —
//    two loopback hops, JSON + base64 decode, framing. Target p95 ≤ 20 ms. Left out: the page's
//    own jitter buffer (a fixed 60–100 ms of prebuffer, the same for every brain; see live-render).
// 2. Audio/mouth offset in headless Debian chromium on that avatar (audio-driven lips: the page
//    meters what it plays): the fake speaks words by espeak-ng with 80 ms gaps; at each onset and
//    offset, when the heard level crosses half its peak vs when the mouth's openness does
//    (positive: mouth late). Target as for the voice: within 45 ms early / 125 ms late.
/* global window, document */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { tsImport } from 'tsx/esm/api';
import { audioMouthOffsets as offsets, createAvatar, openLiveSession, percentile, root, round, serverMain, sleep, startPortal } from './support.mjs';

const TARGET_P95_MS = 20;
const stats = (v) => ({ n: v.length, p50: round(percentile(v, 50)), p95: round(percentile(v, 95)), max: round(Math.max(...v)) });

/** Records when the fake sent each response's first audio delta (wraps the server side's send). */
function stampFirstAudio(connection, sentAt) {
  const send = connection.socket.send.bind(connection.socket);
  connection.socket.send = (data, ...rest) => {
    if (typeof data === 'string' && data.includes('"response.output_audio.delta"')) {
      const id = /"response_id":"([^"]+)"/.exec(data)?.[1];
      if (id && !sentAt.has(id)) sentAt.set(id, performance.now());
    }
    return send(data, ...rest);
  };
}

/** A page: admission, the socket (speaker on), and per utterance the first audio frame's arrival. */
async function openPage(portal, avatarId) {
  const firstAudio = new Map();
  const finals = [];
  const page = await openLiveSession(portal, avatarId, {
    textOnly: false,
    onBinary: (data) => {
      const utt = data.readUInt16LE(2);
      if (data.length > 8 && !firstAudio.has(utt)) firstAudio.set(utt, performance.now());
    },
    onFrame: (f) => f.type === 'assistant' && f.final && finals.push(f.utt),
  });
  return { ws: page.ws, hello: page.ready, firstAudio, finals };
}

async function workerLatency(portal, fake, avatarId, turns, warmup) {
  const before = fake.connections.length;
  const page = await openPage(portal, avatarId);
  for (let i = 0; i < 200 && fake.connections.length === before; i++) await sleep(25);
  const connection = fake.connections.at(-1);
  const sentAt = new Map();
  stampFirstAudio(connection, sentAt);
  // Each turn's answer is the provider's first response not seen before (the greeting's is seen).
  const seen = new Set();
  const delays = [];
  await sleep(1500); // the greeting
  for (const k of sentAt.keys()) seen.add(k);
  for (let i = 0; i < warmup + turns; i++) {
    const done = page.finals.length;
    page.ws.send(JSON.stringify({ type: 'text', id: `b${i}`, text: `question ${i}` }));
    const end = Date.now() + 10_000;
    while (page.finals.length === done && Date.now() < end) await sleep(5);
    const utt = page.finals.at(-1);
    const id = [...sentAt.keys()].find((k) => !seen.has(k));
    if (id === undefined || utt === undefined) throw new Error('no answer');
    seen.add(id);
    if (i >= warmup) delays.push(page.firstAudio.get(utt) - sentAt.get(id));
  }
  page.ws.close();
  return { audioSampleRate: page.hello.audioSampleRate, firstAudioDelayMs: stats(delays) };
}

/** A word spoken by espeak-ng (Debian's), at 24 kHz, with 80 ms of silence after it. */
const spoken = new Map();
function speech(word) {
  if (spoken.has(word)) return spoken.get(word);
  const wav = execFileSync('espeak-ng', ['-v', 'en-us', '-s', '170', '--stdout', word]);
  const from = wav.readUInt32LE(24);
  const at = wav.indexOf('data', 12) + 8;
  const src = new Int16Array(wav.buffer.slice(wav.byteOffset + at, wav.byteOffset + wav.length - ((wav.length - at) % 2)));
  const n = Math.floor((src.length * 24_000) / from);
  const out = new Int16Array(n + 1920);
  for (let i = 0; i < n; i++) {
    const x = (i * from) / 24_000;
    const j = Math.floor(x);
    out[i] = Math.round(src[j] + ((src[Math.min(j + 1, src.length - 1)] ?? 0) - src[j]) * (x - j));
  }
  spoken.set(word, out);
  return out;
}


async function mouthOffset(portal, avatarId) {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'],
  });
  try {
    const page = await (await browser.newContext({ viewport: { width: 640, height: 480 } })).newPage();
    await page.goto(`${portal.base}/avatar/${avatarId}?autoConnect=true&hideChatHistory=true`);
    await page.waitForFunction(() => document.querySelector('.ps-avatar')?.getAttribute('data-connection') === 'connected', null, { timeout: 30_000 });
    await page.waitForTimeout(3000); // the greeting
    await page.evaluate(() => window.__personaAvatar.probe?.());
    await page.evaluate(() => {
      const input = document.querySelector('#ps-message');
      input.value = 'tell me a story';
      input.closest('form').requestSubmit();
    });
    await page.waitForTimeout(6000);
    const probe = await page.evaluate(() => window.__personaAvatar);
    const diffs = offsets(probe.history, probe.levels);
    return { lipSync: probe.lipSync, fps: round(probe.fps, 1), audioMouthOffsetMs: diffs.length ? { n: diffs.length, min: round(Math.min(...diffs), 0), max: round(Math.max(...diffs), 0), mean: round(diffs.reduce((a, b) => a + b, 0) / diffs.length, 0) } : null };
  } finally {
    await browser.close();
  }
}

export async function run() {
  const { startFakeOpenAiRealtime, OPENAI_REALTIME_KEY } = await tsImport(path.join(root, 'packages/worker/src/test/fake-openai-realtime.ts'), import.meta.url);
  const fake = await startFakeOpenAiRealtime();
  // Answers of 8 words; deltas of 100 ms sent at 10 ms intervals (faster than real time, as providers do).
  fake.knobs = { answer: (a) => (a.kind === 'greeting' ? a.text : 'one two three four five six seven eight'), msPerWord: 300, deltaDelayMs: 10 };
  const portal = await startPortal(serverMain, { ALLOW_PRIVATE_URLS: 'true' });
  try {
    const avatarId = await createAvatar(portal, {
      name: 'Bench Realtime',
      nlpEngine: 9,
      setupMode: 2,
      wakeUpMessage: 'Hello.',
      customData: { agent_pipeline_config: { speech_to_speech: { url: fake.url, api_key: OPENAI_REALTIME_KEY, model: 'gpt-realtime', voice_id: 'verse', instructions: 'Bench.', greeting: '' } } },
    });
    const latency = await workerLatency(portal, fake, avatarId, Number(process.env.BENCH_TURNS ?? 40), 5);
    // Real speech for the audio-driven lips (a tone is no speech to its viseme model).
    fake.knobs = { ...fake.knobs, answer: (a) => (a.kind === 'greeting' ? a.text : 'the harbour opens early and the ferries leave at nine'), speech, deltaDelayMs: 40 };
    const mouth = await mouthOffset(portal, avatarId);
    return {
      setup: 'built server (npm start settings, PGlite, embedded worker), OpenAI Realtime fake in the bench process, page socket in the bench process',
      ...latency,
      target: { firstAudioDelayP95Ms: TARGET_P95_MS, met: latency.firstAudioDelayMs.p95 <= TARGET_P95_MS },
      page: mouth,
      mouthTarget: '−45 … +125 ms (mouth early … late)',
    };
  } finally {
    await portal.stop();
    await fake.close();
  }
}
