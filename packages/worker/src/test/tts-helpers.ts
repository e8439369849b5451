import { expect } from 'vitest';
import { ProviderError } from '../core/errors.js';
import type { TtsEngine } from '../providers/tts/types.js';
import { concatSamples } from '../core/audio.js';
import type { VisemeItem, WordItem } from '../core/visemes.js';

export interface Collected {
  samples: Int16Array;
  sampleRate: number;
  visemes: VisemeItem[];
  words: WordItem[];
  chunks: number;
  /** ms from the call to the first audio and to the end. */
  firstAudioMs: number | null;
  totalMs: number;
}

/** Runs one synthesis to the end and gathers what it gave. */
export async function synth(engine: TtsEngine, text: string, signal: AbortSignal = new AbortController().signal, previousText?: string, rate?: number): Promise<Collected> {
  const parts: Int16Array[] = [];
  const visemes: VisemeItem[] = [];
  const words: WordItem[] = [];
  let sampleRate = engine.sampleRate;
  let chunks = 0;
  let firstAudioMs: number | null = null;
  const t0 = performance.now();
  for await (const c of engine.synthesize(text, { signal, previousText, ...(rate !== undefined ? { rate } : {}) })) {
    chunks++;
    if (c.pcm.length) {
      parts.push(c.pcm);
      sampleRate = c.sampleRate;
      firstAudioMs ??= performance.now() - t0;
    }
    visemes.push(...(c.marks?.visemes ?? []));
    words.push(...(c.marks?.words ?? []));
  }
  return { samples: concatSamples(parts), sampleRate, visemes, words, chunks, firstAudioMs, totalMs: performance.now() - t0 };
}

export async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** Start and end (ms) of the loud stretches of a signal (the fake's words). */
export function loudSpans(samples: Int16Array, sampleRate: number, threshold = 1000): { startMs: number; endMs: number }[] {
  const spans: { startMs: number; endMs: number }[] = [];
  const win = Math.round(sampleRate / 200);
  let open: number | null = null;
  for (let i = 0; i < samples.length; i += win) {
    let peak = 0;
    for (let k = i; k < Math.min(samples.length, i + win); k++) peak = Math.max(peak, Math.abs(samples[k]!));
    const t = (i * 1000) / sampleRate;
    if (peak > threshold && open === null) open = t;
    if (peak <= threshold && open !== null) {
      spans.push({ startMs: open, endMs: t });
      open = null;
    }
  }
  if (open !== null) spans.push({ startMs: open, endMs: (samples.length * 1000) / sampleRate });
  return spans;
}

export const durationMs = (c: { samples: Int16Array; sampleRate: number }) => (c.samples.length * 1000) / c.sampleRate;

/** Visemes other than silence. */
export const spoken = (items: readonly VisemeItem[]) => items.filter((v) => v.v !== 'sil');

/**
 * Starts a synthesis and interrupts it as soon as its first audio arrives; returns what it threw
 * and how long the engine took to stop after the abort.
 */
export async function interruptAfterFirstAudio(engine: TtsEngine, text: string): Promise<{ error: unknown; stopMs: number; chunksAfterAbort: number }> {
  const ac = new AbortController();
  let abortedAt = 0;
  let chunksAfterAbort = 0;
  try {
    for await (const c of engine.synthesize(text, { signal: ac.signal })) {
      if (abortedAt) chunksAfterAbort++;
      if (c.pcm.length && !abortedAt) {
        abortedAt = performance.now();
        ac.abort(new Error('interrupted'));
      }
    }
    return { error: null, stopMs: performance.now() - abortedAt, chunksAfterAbort };
  } catch (error) {
    return { error, stopMs: performance.now() - abortedAt, chunksAfterAbort };
  }
}

/** Waits until `check` holds (polling), at most `ms`. */
export async function eventually(check: () => boolean, ms = 2000): Promise<void> {
  const until = performance.now() + ms;
  while (!check() && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
