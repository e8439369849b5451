import createRnnoise, { type RnnoiseWasm } from '@echogarden/rnnoise-wasm';
import { Resampler } from '../core/audio.js';

/**
 * Noise suppression of the visitor's audio before the VAD and the STT (issue 29, ADR 096):
 * RNNoise (Xiph, BSD-3) compiled to WebAssembly, `@echogarden/rnnoise-wasm` — one module per
 * worker, one state per session. RNNoise works on 10 ms frames of 48 kHz audio: the mic's 16 kHz
 * PCM goes up to 48 kHz, through RNNoise frame by frame, and back down to 16 kHz, with the
 * worker's own streaming resampler. The output is the input delayed by ~12 ms (a frame being
 * filled plus both resamplers' half filters); pushing a signal in pieces gives the samples
 * pushing it whole gives.
 */
export interface Denoiser {
  /** 16 kHz PCM16 mono in (any length); the denoised samples ready so far out (16 kHz). */
  process(pcm: Int16Array): Int16Array;
  /** Frees the state (a closed denoiser passes audio through unchanged). */
  close(): void;
}

export interface DenoiseModel {
  readonly name: string;
  /** One per session: each keeps its own recurrent state and buffers. */
  stream(): Denoiser;
}

/** RNNoise's frame: 10 ms at 48 kHz. */
export const RNNOISE_RATE = 48_000;
const RATE = 16_000;

/** A Denoiser on an RNNoise module (the module is shared; the state is this stream's). */
function rnnoiseStream(m: RnnoiseWasm): Denoiser {
  const frame = m._rnnoise_get_frame_size();
  let state = m._rnnoise_create(0);
  const buf = m._malloc(frame * 4);
  const up = new Resampler(RATE, RNNOISE_RATE);
  const down = new Resampler(RNNOISE_RATE, RATE);
  // 48 kHz samples waiting for a whole frame, and the denoised frames to bring down.
  const pending = new Float32Array(frame);
  let pendingLen = 0;
  return {
    process(pcm) {
      if (state === 0) return pcm;
      const high = up.push(pcm);
      const frames = Math.floor((pendingLen + high.length) / frame);
      const out = new Int16Array(frames * frame);
      let at = 0;
      let done = 0;
      while (at < high.length) {
        const take = Math.min(frame - pendingLen, high.length - at);
        for (let i = 0; i < take; i++) pending[pendingLen + i] = high[at + i]!;
        pendingLen += take;
        at += take;
        if (pendingLen < frame) break;
        // The heap may have grown since (another session's state): its view is read each time.
        const heap = m.HEAPF32;
        heap.set(pending, buf >> 2);
        m._rnnoise_process_frame(state, buf, buf);
        const base = buf >> 2;
        for (let i = 0; i < frame; i++) {
          const v = heap[base + i]!;
          out[done + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v);
        }
        done += frame;
        pendingLen = 0;
      }
      return down.push(out);
    },
    close() {
      if (state === 0) return;
      m._rnnoise_destroy(state);
      m._free(buf);
      state = 0;
    },
  };
}

/** Loads RNNoise (its .wasm is read from the package's folder: nothing is downloaded). */
export async function loadRnnoise(): Promise<DenoiseModel> {
  const m = await createRnnoise();
  return { name: 'rnnoise', stream: () => rnnoiseStream(m) };
}

let shared: Promise<DenoiseModel> | null = null;
/** The worker's one RNNoise module, loaded on first use. */
export function sharedRnnoise(): Promise<DenoiseModel> {
  shared ??= loadRnnoise().catch((err: unknown) => {
    shared = null;
    throw err;
  });
  return shared;
}

/**
 * A denoiser usable at once while the module loads (~50 ms when a visitor first turns the mic on):
 * until then the audio passes through as it is. A module that fails to load leaves it raw.
 */
export function lazyDenoiser(model: () => Promise<DenoiseModel>, onError?: (err: Error) => void): Denoiser {
  let stream: Denoiser | null = null;
  let loading = false;
  let closed = false;
  return {
    process(pcm) {
      if (stream) return stream.process(pcm);
      if (!loading && !closed) {
        loading = true;
        model().then(
          (m) => {
            if (!closed) stream = m.stream();
          },
          (err: unknown) => onError?.(err instanceof Error ? err : new Error(String(err))),
        );
      }
      return pcm;
    },
    close() {
      closed = true;
      stream?.close();
      stream = null;
    },
  };
}
