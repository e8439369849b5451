import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** espeak-ng's (Debian's) speech of `text`: 16-bit mono samples at its 22050 Hz. */
function espeak(text: string, wordsPerMinute: number): Int16Array {
  const wav = execFileSync('espeak-ng', ['-v', 'en-us', '-s', String(wordsPerMinute), '--stdout', text]);
  if (wav.readUInt32LE(24) !== ESPEAK_RATE) throw new Error('espeak-ng did not speak at 22050 Hz');
  // espeak's WAV: the samples follow the 'data' chunk header (its size field may be unset when streaming).
  const at = wav.indexOf('data', 12) + 8;
  const bytes = wav.subarray(at, at + ((wav.length - at) & ~1));
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
const ESPEAK_RATE = 22_050;

/**
 * A 16-bit mono WAV of spoken parts (espeak-ng, 160 words a minute unless a part says) and silences (ms), at espeak's 22050 Hz: the
 * visitor Chromium's fake microphone plays. Made before the browser starts (its flags name the file).
 */
export function visitorWav(parts: (string | number | { text: string; wordsPerMinute: number })[]): string {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if (typeof part === 'number') chunks.push(Buffer.alloc(Math.round((part * ESPEAK_RATE) / 1000) * 2));
    else {
      const pcm = typeof part === 'string' ? espeak(part, 160) : espeak(part.text, part.wordsPerMinute);
      chunks.push(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    }
  }
  const pcm = Buffer.concat(chunks);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(ESPEAK_RATE, 24);
  header.writeUInt32LE(ESPEAK_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(pcm.length, 40);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'persona-visitor-')), 'visitor.wav');
  fs.writeFileSync(file, Buffer.concat([header, pcm]));
  return file;
}

/** Chromium's flags for a fake microphone that plays `wav` once (and asks no permission). */
export const fakeMicArgs = (wav: string) => ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}%noloop`];

const words = new Map<string, Int16Array>();

/**
 * One word of an agent's voice for a provider fake: espeak-ng's speech of it, its silences
 * trimmed, at `rate`, then `gapMs` of silence (≈ 350 ms a word with the default gap). Real speech,
 * as the page's audio-driven lips expect (a tone is no speech to its viseme model).
 */
export function spokenWord(word: string, rate: number, gapMs = 60): Int16Array {
  const key = `${word}@${rate}/${gapMs}`;
  const known = words.get(key);
  if (known) return known;
  const src = espeak(word, 240);
  let first = src.findIndex((x) => Math.abs(x) > 400);
  let last = src.findLastIndex((x) => Math.abs(x) > 400);
  if (first < 0) [first, last] = [0, -1];
  const pad = Math.round(ESPEAK_RATE * 0.015);
  const voiced = src.subarray(Math.max(0, first - pad), Math.min(src.length, last + 1 + pad));
  const n = Math.floor((voiced.length * rate) / ESPEAK_RATE);
  const out = new Int16Array(n + Math.round((gapMs * rate) / 1000));
  for (let i = 0; i < n; i++) {
    const x = (i * ESPEAK_RATE) / rate;
    const j = Math.floor(x);
    const a = voiced[j]!;
    out[i] = Math.round(a + ((voiced[Math.min(j + 1, voiced.length - 1)] ?? a) - a) * (x - j));
  }
  words.set(key, out);
  return out;
}
