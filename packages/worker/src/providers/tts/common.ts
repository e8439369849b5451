import { ProviderError } from '../../core/errors.js';
import type { Pcm16Reader } from '../../core/audio.js';
import { speedToRate } from './types.js';

/** What every TTS client waits for at most. */
export interface TtsTimeouts {
  /** From the request to the response headers and first audio. */
  firstChunkMs: number;
  /** Longest silence between two chunks of a streamed answer. */
  idleMs: number;
}

/**
 * First audio of one piece (≤ 240 characters): streaming providers answer in 0.1–1 s, endpoints
 * that synthesise the whole piece before sending it in 1–3 s. Beyond 6 s the visitor has been
 * waiting in silence for too long: the piece fails and the answer goes on in the chat.
 */
export const TTS_FIRST_AUDIO_MS = 6_000;
/**
 * Silence between two chunks of a streamed answer: audio is made faster than it plays, so a gap
 * of 3 s is already heard as the avatar stopping mid-sentence — far less than a model's pause
 * between tokens (LLM_IDLE_MS).
 */
export const TTS_IDLE_MS = 3_000;

export const DEFAULT_TTS_TIMEOUTS: TtsTimeouts = { firstChunkMs: TTS_FIRST_AUDIO_MS, idleMs: TTS_IDLE_MS };

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

/**
 * What raw PCM never starts with: a synthesis begins with near-silence, while `{"`, `[{`, `<!`,
 * `<?` or `<` + a letter read as a first PCM16LE sample are −11 … −1 dBFS. Such a start is a
 * JSON or markup document (an error) sent with an audio content type: its text, else null.
 */
export function textInsteadOfAudio(bytes: Uint8Array): string | null {
  if (bytes.byteLength < 2) return null;
  const a = bytes[0]!;
  const b = bytes[1]!;
  const json = (a === 0x7b && (b === 0x22 || b === 0x0a || b === 0x0d || b === 0x20)) || (a === 0x5b && b === 0x7b);
  const markup = a === 0x3c && (b === 0x21 || b === 0x3f || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a));
  if (!json && !markup) return null;
  return new TextDecoder().decode(bytes.subarray(0, 2000));
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

/**
 * The speaking rate to ask for: the editor's speed (speedToRate) times the answer's rate
 * (TtsSynthesizeOptions.rate); null when neither asks for a change (send nothing).
 */
export function requestedRate(speed: number | undefined, rate: number | undefined): number | null {
  const extra = rate !== undefined && Number.isFinite(rate) && rate > 0 ? rate : 1;
  const own = speedOption(speed);
  if (own === null && extra === 1) return null;
  return speedToRate(own ?? 0) * extra;
}

/** The editor's speed when it asks for a change (null: the voice's own pace, send nothing). */
export function speedOption(speed: number | undefined): number | null {
  if (speed === undefined || !Number.isFinite(speed) || speed === 0) return null;
  return speed;
}
