import { randomBytes } from 'node:crypto';
import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { createWatchdog, httpFailure, joinUrl, providerFailure } from '../http.js';
import { DEFAULT_STT_TIMEOUTS, MAX_STT_ANSWER_BYTES, batchSession, languageTag, type SttTimeouts } from './batch.js';
import { wavFile } from '../../core/audio.js';
import type { SttEngine } from './types.js';

/**
 * Any OpenAI-compatible transcription endpoint (OpenAI, Groq, a local whisper server…):
 * `POST {base}/audio/transcriptions` as multipart/form-data with `file` (the utterance as a
 * 16 kHz WAV), `model` (default whisper-1), `language` (ISO-639-1, from the main language;
 * omitted for 'multi' so the model detects it), `prompt` (the context phrases, which steer
 * spelling) and `response_format=json`; the answer is `{text}`. One request per utterance.
 * The base URL is the avatar owner's: it goes through the outbound-URL guard (the fetch given).
 */
export const OPENAI_STT = 'openai-compatible';

export interface OpenAiSttSettings {
  baseUrl: string;
  apiKey: string;
  fetch: GuardedFetch;
  timeouts?: Partial<SttTimeouts>;
}

/** Accepts the full endpoint as a base too. */
export function transcriptionsUrl(baseUrl: string): string {
  return joinUrl(baseUrl.replace(/\/audio\/transcriptions\/?$/, ''), 'audio/transcriptions');
}

/** multipart/form-data by hand (the guarded fetch sends bytes, not FormData). */
export function multipart(fields: Record<string, string>, file: { name: string; filename: string; type: string; bytes: Uint8Array }) {
  const boundary = `----persona${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'utf8'));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`, 'utf8'));
  parts.push(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function createOpenAiStt(s: OpenAiSttSettings): SttEngine {
  const timeouts = { ...DEFAULT_STT_TIMEOUTS, ...s.timeouts };
  return {
    provider: OPENAI_STT,
    mode: 'batch',
    async open(options, events) {
      if (!s.baseUrl) throw new ProviderError(OPENAI_STT, 'no endpoint (base_url)');
      let url: string;
      try {
        url = transcriptionsUrl(s.baseUrl);
      } catch {
        throw new ProviderError(OPENAI_STT, 'the endpoint (base_url) is not a URL');
      }
      const main = languageTag(options.languages[0], OPENAI_STT);
      const fields: Record<string, string> = { model: options.model || 'whisper-1', response_format: 'json' };
      if (main && main !== 'multi') fields.language = main.split('-')[0]!.toLowerCase();
      const prompt = (options.phrases ?? []).map((p) => p.trim()).filter(Boolean).join(', ').slice(0, 800);
      if (prompt) fields.prompt = prompt;
      return batchSession(options, events, async (pcm, signal) => {
        const dog = createWatchdog(signal);
        try {
          dog.arm(timeouts.requestMs, 'the transcription');
          const form = multipart(fields, { name: 'file', filename: 'speech.wav', type: 'audio/wav', bytes: wavFile(pcm, options.sampleRate) });
          const res = await s.fetch(url, {
            method: 'POST',
            headers: { ...(s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {}), 'content-type': form.contentType, accept: 'application/json' },
            body: form.body,
            signal: dog.signal,
            timeoutMs: timeouts.requestMs,
            maxBytes: MAX_STT_ANSWER_BYTES,
          });
          if (!res.ok) throw await httpFailure(OPENAI_STT, res);
          const body = (await res.json()) as { text?: unknown; language?: unknown };
          dog.disarm();
          if (typeof body?.text !== 'string') throw new ProviderError(OPENAI_STT, 'an answer without text', res.status);
          return { text: body.text, ...(typeof body.language === 'string' && body.language.length < 20 ? { language: body.language } : {}) };
        } catch (err) {
          throw providerFailure(OPENAI_STT, err, signal, dog);
        } finally {
          dog.dispose();
        }
      });
    },
  };
}
