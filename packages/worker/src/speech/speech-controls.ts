import { AvatarActionLimits, type TAvatarAction } from '@persona/contract';

/**
 * The two avatar tags that change the voice itself rather than the face (ADR 088):
 * - `<trl-break duration="1.0" />` — a pause at that point of the answer. Trulience's attribute is
 *   `duration`, in seconds; SSML's `time` ("500ms", "1.5s") is read too, and so is SSML's
 *   `strength` (none … x-strong) when neither is given. A bare number is seconds. Without any of
 *   them: AvatarActionLimits.breakDefaultMs. A duration that does not read as one (a word, a
 *   negative number) is no pause. One pause is at most AvatarActionLimits.breakMs (the answer's
 *   total is bounded by the pipeline).
 * - `<trl-config speechSpeed='20' />` — the speaking rate from here on, as a change in percent of
 *   the avatar's own pace (20 → 1.2×, -25 → 0.75×, 0 → back to the avatar's own), kept within
 *   AvatarActionLimits.speechSpeedMin … speechSpeedMax. A value that is not a number changes
 *   nothing. Other `trl-config` attributes are passed on to the page as written.
 * The brain may have been talked into writing them by a visitor: every value is bounded here.
 */
export type SpeechControl = { kind: 'break'; ms: number } | { kind: 'rate'; rate: number };

const STRENGTH_MS: Record<string, number> = { none: 0, 'x-weak': 100, weak: 250, medium: 500, strong: 750, 'x-strong': 1000 };

/** A time designation in ms: "1.0" and "1.5s" (seconds), "500ms"; null when it is none. */
function timeMs(value: string): number | null {
  const m = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(ms|s)?\s*$/i.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  if (!Number.isFinite(n) || n < 0) return null;
  return m[2]?.toLowerCase() === 'ms' ? n : n * 1000;
}

/** The pause a `<trl-break>` asks for (ms), or null when its duration cannot be read. */
export function breakMs(attrs: Record<string, string>): number | null {
  const given = attrs.duration ?? attrs.time;
  let ms: number | null;
  if (given !== undefined) ms = timeMs(given);
  else if (attrs.strength !== undefined) ms = STRENGTH_MS[attrs.strength.trim().toLowerCase()] ?? null;
  else ms = AvatarActionLimits.breakDefaultMs;
  if (ms === null) return null;
  return Math.round(Math.min(AvatarActionLimits.breakMs, ms));
}

/** The rate a `speechSpeed` asks for (a multiplier of the avatar's own pace), or null when it is not a number. */
export function speechSpeedRate(value: string | undefined): number | null {
  if (value === undefined) return null;
  const m = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*%?\s*$/.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return null;
  const pct = Math.min(AvatarActionLimits.speechSpeedMax, Math.max(AvatarActionLimits.speechSpeedMin, n));
  return 1 + pct / 100;
}

/** What an avatar action does to the voice, or null for the face's actions. */
export function speechControl(action: TAvatarAction): SpeechControl | null {
  if (action.kind !== 'tag') return null;
  if (action.tag === 'trl-break') {
    const ms = breakMs(action.attrs);
    return ms === null ? null : { kind: 'break', ms };
  }
  if (action.tag === 'trl-config') {
    const rate = speechSpeedRate(action.attrs.speechspeed);
    return rate === null ? null : { kind: 'rate', rate };
  }
  return null;
}
