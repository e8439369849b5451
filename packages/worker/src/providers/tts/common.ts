import { ProviderError } from '../../brains/types.js';
import type { Pcm16Reader } from '../../speech/audio.js';

/** What every TTS client waits for at most. */
export interface TtsTimeouts {
  /** From the request to the response headers and first audio. */
  firstChunkMs: number;
  /** Longest silence between two chunks of a streamed answer. */
  idleMs: number;
}

export const DEFAULT_TTS_TIMEOUTS: TtsTimeouts = { firstChunkMs: 15_000, idleMs: 10_000 };

/** Largest answer accepted for one piece of speech (bytes on the wire). */
export const MAX_TTS_BYTES = 32 * 1024 * 1024;

/** Lines of a newline-delimited JSON (or text) stream; a line longer than `maxLine` is an error. */
export async function* readLines(body: ReadableStream<Uint8Array>, onBytes?: () => void, maxLine = 8 * 1024 * 1024): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        break;
      }
      onBytes?.();
      buffer += decoder.decode(r.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line.trim()) yield line;
      }
      if (buffer.length > maxLine) throw new Error(`a line longer than ${maxLine} characters`);
    }
    buffer += decoder.decode();
    if (buffer.trim()) yield buffer;
  } finally {
    if (done) reader.releaseLock();
    else reader.cancel().catch(() => {});
  }
}

/** Raw bytes of a streamed body, chunk by chunk. */
export async function* readBytes(body: ReadableStream<Uint8Array>, onBytes?: () => void): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        return;
      }
      onBytes?.();
      if (r.value.byteLength) yield r.value;
    }
  } finally {
    if (done) reader.releaseLock();
    else reader.cancel().catch(() => {});
  }
}

/** base64 PCM16LE (split anywhere by the provider) → samples. */
export function base64Samples(reader: Pcm16Reader, b64: unknown, provider: string): Int16Array {
  if (typeof b64 !== 'string' || b64.length === 0) return new Int16Array(0);
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(b64)) throw new ProviderError(provider, 'audio that is not base64');
  return reader.push(Buffer.from(b64, 'base64'));
}

/** The sample rate the provider offers that is closest to the wanted one. */
export function nearestRate(wanted: number | undefined, offered: readonly number[], fallback: number): number {
  if (!wanted) return fallback;
  return offered.reduce((best, r) => (Math.abs(r - wanted) < Math.abs(best - wanted) ? r : best), offered[0] ?? fallback);
}

/** XML text and attribute escaping for SSML. */
export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** The editor's speed when it asks for a change (null: the voice's own pace, send nothing). */
export function speedOption(speed: number | undefined): number | null {
  if (speed === undefined || !Number.isFinite(speed) || speed === 0) return null;
  return speed;
}
