/**
 * The room's level, so that speech in the room is not taken for the visitor's (issue 29, ADR 101).
 *
 * The VAD tells speech from noise, not the visitor from the café: six talkers at the next tables
 * are speech to it, all the time, and a segment that never ends holds the visitor's turn open
 * (bench noise: 0 of 6 questions answered over babble). The visitor speaks into the microphone:
 * louder than the room by far (a browser mic with its gain control puts a voice near −20 dBFS; a
 * café's babble reaches it near −35). So a window the VAD calls speech counts as the visitor's
 * only when it is louder than the room by `marginDb`.
 *
 * The room's level is a low percentile (PERCENTILE) of the last HISTORY_WINDOWS windows' levels —
 * every window, speech or not: the visitor's own pauses between words hear the room, so a long
 * question does not raise it to the visitor's level. The gate closes only in a room that talks:
 * one where, for a second at a time (TALKING_RUN_WINDOWS), every window is speech to the VAD yet
 * no louder than the room's level plus the margin — the babble between the visitor's questions.
 * It stays closed while that happens again within HISTORY_WINDOWS. A visitor's own quiet syllables
 * never make such a run (their louder ones come between), so a single talker in a quiet room is
 * never gated — also when their quieter words set the room's level (a long question, no pauses).
 * A fan or the street is not speech to the VAD (Silero ignores them): the gate stays open there,
 * and the visitor's soft words are not cut. In a quiet room (the level under QUIET_ROOM_DB) and
 * until a second of audio has been heard, it is open too.
 */
export const HISTORY_WINDOWS = 188; // 6 s of 32 ms windows
export const PERCENTILE = 0.2;
export const QUIET_ROOM_DB = -50;
export const TALKING_RUN_WINDOWS = 31; // 1 s
/**
 * The gate closes only on a steady room: the median level of its own windows (those no louder than
 * the room's level plus the margin) within this of its low percentile. Babble of many talkers is
 * steady (2–3.7 dB over every 6 s of two minutes on the bench); two people talking at the next
 * table are not (4.2–7.1), and a level gate over them made their louder words turns (2–8 in five
 * minutes against 0 without it): there it stays open.
 */
export const STEADY_DB = 4;
/**
 * In a room that talks, a segment with less speech louder than the room than this is the room's
 * (the next table's louder words come in short bursts; the visitor's question does not).
 */
export const ROOM_MIN_SPEECH_MS = 400;
const WARM_WINDOWS = 31; // 1 s
const EVERY = 8; // the percentile is taken every 8 windows (256 ms)
const FLOOR_DB = -100;

export interface RoomGate {
  /** One window's level (dBFS of its RMS) and whether the VAD calls it speech; true when speech at that level is the visitor's. */
  hear(levelDb: number, speech: boolean): boolean;
  /** The room's level now (dBFS), or null while the gate is warming up. */
  roomDb(): number | null;
  /** The room talks (babble): the gate is closing on speech no louder than the room. */
  talking(): boolean;
}

/** dBFS of a window's RMS (16-bit samples). */
export function levelDb(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  const rms = Math.sqrt(sum / Math.max(1, pcm.length)) / 32768;
  return rms > 0 ? Math.max(FLOOR_DB, 20 * Math.log10(rms)) : FLOOR_DB;
}

/** A gate `marginDb` over the room; 0 (or less) is no gate (every window passes). */
export function createRoomGate(marginDb: number): RoomGate {
  const ring = new Float64Array(HISTORY_WINDOWS);
  const sorted = new Float64Array(HISTORY_WINDOWS);
  let count = 0;
  let next = 0;
  let since = EVERY;
  let room: number | null = null;
  /** The room's level is steady (its median within STEADY_DB of its low percentile): babble, not a conversation nearby. */
  let steady = false;
  /** Windows in a row that were the room talking; windows left of the last such second. */
  let run = 0;
  let talkingFor = 0;
  return {
    hear(db, speech) {
      ring[next] = db;
      next = (next + 1) % HISTORY_WINDOWS;
      count = Math.min(HISTORY_WINDOWS, count + 1);
      if (marginDb <= 0) return true;
      since++;
      if (count >= WARM_WINDOWS && since >= EVERY) {
        since = 0;
        const part = sorted.subarray(0, count);
        part.set(ring.subarray(0, count));
        part.sort();
        room = part[Math.floor(PERCENTILE * (count - 1))]!;
        // Steadiness of the room's own windows (the visitor's louder ones left out): their median's
        // distance from the low percentile.
        let n = 0;
        while (n < count && part[n]! < room + marginDb) n++;
        steady = n > 0 && part[Math.floor(0.5 * (n - 1))]! - room < STEADY_DB;
      }
      if (room === null || room < QUIET_ROOM_DB) {
        run = 0;
        talkingFor = 0;
        return true;
      }
      const quiet = db < room + marginDb;
      run = speech && quiet ? run + 1 : 0;
      if (run >= TALKING_RUN_WINDOWS && steady) talkingFor = HISTORY_WINDOWS;
      else if (talkingFor > 0) talkingFor--;
      return talkingFor === 0 || !quiet;
    },
    roomDb: () => (count >= WARM_WINDOWS ? room : null),
    talking: () => talkingFor > 0,
  };
}
