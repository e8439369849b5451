import { VISEME_COUNT, visemeIndex } from './visemes';

/** An open vowel mouth: the shape when the classifier has none, and a part of every shape. */
const OPEN_SHAPE: readonly (readonly [number, number])[] = [
  [visemeIndex.aa, 0.6],
  [visemeIndex.E, 0.25],
  [visemeIndex.O, 0.15],
];
/** How much of the shape comes from the classifier (the rest is the open vowel). */
const CLASSIFIED = 0.6;

/**
 * Viseme weights for a voice that came without visemes. How far the mouth opens (`open`, 0–1)
 * comes from the level of the audio at the position being heard, so it is on time; the shape
 * from the audio classifier's weights, which lag the sound — only their proportions are used,
 * blended with an open vowel so that a stale closed shape (PP, SS) cannot keep a loud mouth shut.
 */
export function audioMouth(open: number, classified: Float32Array | null): Float32Array {
  const w = new Float32Array(VISEME_COUNT);
  let sum = 0;
  if (classified) for (let k = 0; k < VISEME_COUNT; k++) if (k !== visemeIndex.sil) sum += classified[k]!;
  const fromClassifier = classified && sum > 0.05 ? CLASSIFIED : 0;
  if (fromClassifier > 0) for (let k = 0; k < VISEME_COUNT; k++) if (k !== visemeIndex.sil) w[k] = (fromClassifier * classified![k]!) / sum;
  for (const [k, v] of OPEN_SHAPE) w[k] = w[k]! + (1 - fromClassifier) * v;
  for (let k = 0; k < VISEME_COUNT; k++) w[k] = w[k]! * open;
  w[visemeIndex.sil] = 1 - open;
  return w;
}
