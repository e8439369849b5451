import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spokenWord } from './support/espeak';
import { startFakeProviders } from './support/fake-providers';
import { startMailSink } from './support/mail-sink';
import { startFakeOpenAi } from '../../worker/src/test/fake-openai';
import { OPENAI_REALTIME_KEY, startFakeOpenAiRealtime } from '../../worker/src/test/fake-openai-realtime';
import { ELEVENLABS_AGENTS, ELEVENLABS_CONVAI_KEY, startFakeElevenLabsConvAi } from '../../worker/src/test/fake-elevenlabs-convai';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const serverMain = path.join(root, 'packages/server/dist/main.js');
const webDist = path.join(root, 'packages/web/dist');
const webIndex = path.join(webDist, 'index.html');

async function waitForHealth(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the server did not become healthy within 120 s:\n${output()}`);
}

/**
 * Starts an SMTP sink and the built server (on a fresh PGlite data dir, registration on, mail to
 * the sink), and tells the tests where things are through the environment.
 */
export default async function globalSetup() {
  for (const file of [serverMain, webIndex]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(root, file)} is missing: run \`npm run build\` first`);
  }
  const port = process.env.E2E_PORT!;
  const baseUrl = `http://127.0.0.1:${port}`;
  // The portal's port was free when the config asked the OS; the fakes below listen on port 0 and
  // the OS could hand that same port to one of them (a clean-clone CI run failed so: EADDRINUSE).
  // Held here until the portal is spawned.
  const hold = net.createServer();
  await new Promise<void>((resolve) => {
    hold.once('error', () => resolve()); // taken already: the portal's own start says so
    hold.listen(Number(port), '127.0.0.1', () => resolve());
  });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-e2e-'));
  const mailDir = path.join(work, 'mail');
  const sink = await startMailSink(mailDir);
  // An OpenAI-compatible model on 127.0.0.1 for LLM avatars (the worker's scripted fake: answers
  // from knowledge passages, calls the function it is asked to call, reports tool results).
  const llm = await startFakeOpenAi({ apiKey: 'e2e-llm-key' });
  // OpenAI Realtime on 127.0.0.1 for speech-to-speech avatars (live-realtime.spec.ts): its server
  // VAD hears the fake microphone; each spoken turn is answered with a few seconds of voice, long
  // enough to be talked over, a word at a time with a short silence after each (an unbroken tone
  // would hold the audio-driven mouth open from the first word to the last).
  const realtime = await startFakeOpenAiRealtime();
  realtime.knobs = {
    transcripts: Array.from({ length: 100 }, () => 'Tell me about the harbour'),
    answer: (asked) =>
      asked.kind === 'audio' ? 'The harbour was dug in the twelfth century and its granite lighthouse still guides the ferries home every single night of the year.' : asked.kind === 'text' ? `You said ${asked.text}.` : asked.text,
    msPerWord: 350,
    wordGapMs: 80,
  };
  // ElevenLabs Conversational AI for third-party avatars (live-elevenlabs.spec.ts), reached through
  // the fake providers' /eleven (PROVIDER_ELEVENLABS_URL): its level VAD hears the fake microphone,
  // the agent greets (~4.7 s), answers a spoken turn with ~8 s of voice streamed at about the pace it is
  // played (so the agent is still speaking, and interrupted, when the visitor talks over it).
  const convAi = await startFakeElevenLabsConvAi();
  convAi.knobs = {
    firstMessage: 'Welcome aboard! Ask me anything about the ferries, the timetable or the harbour.',
    transcripts: (turn) => (turn === 0 ? 'When does the last ferry leave' : 'Wait, stop'),
    answer: (asked) =>
      asked.text.startsWith('Wait')
        ? 'Of course.'
        : 'The last ferry leaves the north quay at eleven, and on summer weekends a late boat runs after midnight for the festival crowds.',
    // Spoken words (espeak-ng, ~350 ms each with a short gap): the page's lips follow real speech.
    speech: (word, rate) => spokenWord(word, rate),
    chunkMs: 100,
    chunkDelayMs: 95,
    // A pause between the question's words is not the end of its turn.
    silenceMs: 700,
  };
  // Spoken now, not while a turn streams (the agent speaks pcm_16000).
  for (const text of [convAi.knobs.firstMessage!, convAi.knobs.answer!({ kind: 'audio', text: '' }), convAi.knobs.answer!({ kind: 'audio', text: 'Wait, stop' })]) {
    for (const word of text.split(/\s+/)) spokenWord(word, 16_000);
  }
  // The Brain tab's provider look-ups go here (brain.spec.ts); the ConvAI fake's agents' conversations go on to it.
  const providers = await startFakeProviders({ convAi: { url: convAi.baseUrl, agents: Object.values(ELEVENLABS_AGENTS) } });

  const admin = { email: 'admin@e2e.test', password: 'admin-e2e-password-1' };
  const workerSecret = 'e2e-worker-secret-0123456789abcdef';
  let output = '';
  if (hold.listening) await new Promise<void>((resolve) => hold.close(() => resolve()));
  const server = spawn(process.execPath, [serverMain], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      NODE_ENV: 'production',
      PORT: port,
      HOST: '127.0.0.1',
      DATA_DIR: path.join(work, 'data'),
      PUBLIC_URL: baseUrl,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      ALLOW_REGISTRATION: 'true',
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      // The server's own avatar server (VPS Status shows it AVAILABLE); the secret lets a spec start more.
      EMBEDDED_WORKER: 'true',
      WORKER_SECRET: workerSecret,
      WEB_DIST_DIR: webDist,
      COMPANY_NAME: 'Persona Studio E2E Ltd',
      LOG_LEVEL: 'warn',
      // The fake model above is a user-supplied base URL on a loopback address.
      ALLOW_PRIVATE_URLS: 'true',
      PROVIDER_OPENAI_URL: `${providers.url}/openai`,
      PROVIDER_ELEVENLABS_URL: `${providers.url}/eleven`,
      // The offline recogniser's opt-in modes (ADR 105, 106), passed on when a run asks for them.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WORKER_STT_'))),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk) => (output += chunk));
  server.stderr?.on('data', (chunk) => (output += chunk));
  // E2E_SERVER_LOG=FILE keeps the server's log (warnings and errors) for a look after the run.
  if (process.env.E2E_SERVER_LOG) {
    const log = fs.createWriteStream(process.env.E2E_SERVER_LOG);
    server.stdout?.pipe(log);
    server.stderr?.pipe(log);
  }
  await waitForHealth(baseUrl, server, () => output);

  process.env.E2E_MAIL_DIR = mailDir;
  process.env.E2E_ADMIN_EMAIL = admin.email;
  process.env.E2E_ADMIN_PASSWORD = admin.password;
  process.env.E2E_WORKER_SECRET = workerSecret;
  process.env.E2E_LLM_URL = llm.url;
  process.env.E2E_LLM_KEY = 'e2e-llm-key';
  process.env.E2E_REALTIME_URL = realtime.url;
  process.env.E2E_REALTIME_KEY = OPENAI_REALTIME_KEY;
  process.env.E2E_CONVAI_AGENT = ELEVENLABS_AGENTS.private;
  process.env.E2E_CONVAI_KEY = ELEVENLABS_CONVAI_KEY;

  return async () => {
    await new Promise<void>((resolve) => {
      if (server.exitCode !== null) return resolve();
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
      setTimeout(() => server.kill('SIGKILL'), 10_000).unref();
    });
    await sink.close();
    await llm.close();
    await realtime.close();
    await providers.close();
    await convAi.close();
    if (process.env.E2E_KEEP_DATA) console.log(`e2e data kept in ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  };
}
