/**
 * The level of each utterance's audio per 10 ms, computed as its samples arrive — ahead of
 * playback, as the jitter buffer holds them. The mouth of an avatar whose voice came without
 * visemes (speech to speech, third-party agents, a TTS without marks) reads it at the position
 * being heard, so it opens and closes with the sound: a live analyser of the played audio lags it
 * by its own window and model (HeadAudio: ~100 ms late, measured by `npm run bench -- realtime`).
 */
export const ENVELOPE_STEP_MS = 10;
/** RMS below which the mouth is closed (≈ −44 dBFS: breath, codec noise). */
const FLOOR = 0.006;
/** The level that opens the mouth fully is half the loudest so far, at least this (≈ −30 dBFS). */
const MIN_FULL = 0.03;

interface Utterance {
  levels: number[];
  /** Length of one level's window (ms): 10, or as near as whole samples allow (221 at 22 050 Hz). */
  msPerLevel: number;
  peak: number;
  sum: number;
  count: number;
}

export class LevelEnvelope {
  private readonly utts = new Map<number, Utterance>();

  constructor(private readonly keep = 16) {}

  /** PCM16 samples of an utterance at `sampleRate`, in arrival order. */
  add(utt: number, samples: Int16Array, sampleRate: number) {
    const step = Math.max(1, Math.round((sampleRate * ENVELOPE_STEP_MS) / 1000));
    let u = this.utts.get(utt);
    if (!u) {
      u = { levels: [], msPerLevel: (step * 1000) / sampleRate, peak: 0, sum: 0, count: 0 };
      this.utts.set(utt, u);
      while (this.utts.size > this.keep) this.utts.delete(this.utts.keys().next().value!);
    }
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i]! / 32768;
      u.sum += x * x;
      if (++u.count === step) {
        const rms = Math.sqrt(u.sum / step);
        u.levels.push(rms);
        if (rms > u.peak) u.peak = rms;
        u.sum = 0;
        u.count = 0;
      }
    }
  }

  /**
   * How open the mouth is `ms` into the utterance (0–1): the level there (between the centres of
   * its 10 ms windows, lightly smoothed over its neighbours) between the floor and the full
   * level (half the loudest of the utterance so far). Null when nothing of that utterance has arrived.
   */
  openAt(utt: number, ms: number): number | null {
    const u = this.utts.get(utt);
    if (!u || u.levels.length === 0) return null;
    const at = (i: number) => u.levels[Math.min(u.levels.length - 1, Math.max(0, i))]!;
    const smooth = (i: number) => 0.25 * at(i - 1) + 0.5 * at(i) + 0.25 * at(i + 1);
    const p = ms / u.msPerLevel - 0.5;
    const i = Math.floor(p);
    const f = p - i;
    const level = (1 - f) * smooth(i) + f * smooth(i + 1);
    // The loudest of the utterance so far, audio that arrived ahead included: scaling by the loudest
    // up to the position heard opened soft onsets early (bench realtime −71 … +44 ms against −35 … +52).
    const full = Math.max(MIN_FULL, u.peak / 2);
    return Math.min(1, Math.max(0, (level - FLOOR) / (full - FLOOR)));
  }

  clear() {
    this.utts.clear();
  }
}
