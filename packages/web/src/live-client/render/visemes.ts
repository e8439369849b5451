/**
 * The 15 Oculus visemes (the names TalkingHead, Ready Player Me and our catalogue use for morph
 * targets: `viseme_sil` … `viseme_U`), their mouth-shape groups for 2D portraits, and how the
 * names providers send map onto them.
 */
export const VISEMES = ['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR', 'aa', 'E', 'I', 'O', 'U'] as const;
export type Viseme = (typeof VISEMES)[number];
export const VISEME_COUNT = VISEMES.length;
export const visemeIndex: Record<Viseme, number> = Object.fromEntries(VISEMES.map((v, i) => [v, i])) as Record<Viseme, number>;

const byLower = new Map<string, Viseme>(VISEMES.map((v) => [v.toLowerCase(), v]));
// Other spellings seen on the wire: Polly's viseme marks, Azure's ids, bare phoneme classes.
const aliases: Record<string, Viseme> = {
  // Amazon Polly speech marks (type viseme).
  p: 'PP', t: 'DD', S: 'CH', T: 'TH', f: 'FF', k: 'kk', i: 'I', r: 'RR', s: 'SS', u: 'U', '@': 'aa', a: 'aa', e: 'E', E: 'E', o: 'O', O: 'O',
  // Generic names.
  silence: 'sil', rest: 'sil', x: 'sil', ah: 'aa', ih: 'I', ou: 'U', ee: 'I', oh: 'O',
};
// Azure viseme ids 0–21 → Oculus.
const azure: Viseme[] = ['sil', 'aa', 'aa', 'O', 'E', 'E', 'I', 'U', 'O', 'aa', 'O', 'aa', 'kk', 'RR', 'nn', 'SS', 'CH', 'TH', 'FF', 'DD', 'kk', 'PP'];

/** The Oculus viseme for a name from the wire (`viseme_aa`, `aa`, `AA`, Polly's `p`, Azure's `12`); null when unknown. */
export function normalizeViseme(name: string): Viseme | null {
  const raw = name.startsWith('viseme_') ? name.slice(7) : name;
  if (Object.prototype.hasOwnProperty.call(aliases, raw)) return aliases[raw]!;
  if (/^\d{1,2}$/.test(raw)) return azure[Number(raw)] ?? null;
  return byLower.get(raw.toLowerCase()) ?? null;
}

/** Mouth shapes a 2D portrait draws: each viseme shows one of them. */
export const MOUTH_SHAPES = ['rest', 'closed', 'open', 'wide', 'round', 'teeth', 'narrow'] as const;
export type MouthShape = (typeof MOUTH_SHAPES)[number];
export const mouthShapeOf: Record<Viseme, MouthShape> = {
  sil: 'rest',
  PP: 'closed',
  FF: 'teeth',
  TH: 'teeth',
  DD: 'narrow',
  kk: 'narrow',
  CH: 'teeth',
  SS: 'teeth',
  nn: 'narrow',
  RR: 'round',
  aa: 'open',
  E: 'wide',
  I: 'wide',
  O: 'round',
  U: 'round',
};

/** How far each viseme opens the jaw (0–1): the one number simple rigs and talking photos use. */
export const jawOpenOf: Record<Viseme, number> = {
  sil: 0, PP: 0, FF: 0.08, TH: 0.15, DD: 0.22, kk: 0.28, CH: 0.2, SS: 0.1, nn: 0.18, RR: 0.22, aa: 0.75, E: 0.45, I: 0.3, O: 0.55, U: 0.3,
};
