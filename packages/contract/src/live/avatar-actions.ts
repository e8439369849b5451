// zod/mini: loaded by the avatar page.
import { z } from 'zod/mini';

/**
 * What the brain (or the host page) asks the avatar's face and body to do beside its words: a
 * mood held for a while, a gesture played once, or one of Trulience's avatar tags passed on as
 * written. The brain marks them in its answer with Trulience's tag syntax (`<trl-anim …/>`,
 * `<trl-morph …/>`, …); the worker takes the tags out of what is spoken, shown and remembered
 * and sends each as an `action` frame timed to the words that follow it (ADR 088).
 */
export const AvatarMoods = ['neutral', 'happy', 'sad', 'surprised', 'concerned', 'thinking'] as const;
export type TAvatarMood = (typeof AvatarMoods)[number];

export const AvatarGestures = ['nod', 'shake', 'wave', 'shrug', 'point'] as const;
export type TAvatarGesture = (typeof AvatarGestures)[number];

/**
 * The tags of Trulience's SSML reference (docs.trulience.com/docs/customisation/ssml) and of its
 * public example apps, and our two (`trl-mood`, `trl-gesture`). Any other `<trl-…>` tag is taken
 * out of the text as well, and does nothing.
 */
export const TrulienceTags = [
  'trl-anim',
  'trl-break',
  'trl-config',
  'trl-state',
  'trl-content',
  'trl-morph',
  'trl-speak',
  'trl-play-background-audio',
  'trl-stop-background-audio',
  'trl-repeat',
  'trl-start-repeat',
  'trl-load',
  'trl-load-environment',
  'trl-enable-joystick',
  'trl-disable-joystick',
  // ours
  'trl-mood',
  'trl-gesture',
] as const;
export type TTrulienceTag = (typeof TrulienceTags)[number];

export const AvatarActionLimits = {
  /** Attributes kept from one tag. */
  attrs: 8,
  /** Characters of an attribute's name / value. */
  attrName: 40,
  attrValue: 200,
  /** The longest a mood is held before it eases back to neutral (ms). */
  moodMs: 60_000,
  /** `<trl-break>`: the longest one pause (ms), all pauses of one answer together (ms), and one without a duration (ms). */
  breakMs: 5_000,
  breakTotalMs: 10_000,
  breakDefaultMs: 500,
  /** `<trl-config speechSpeed>`: a change of speaking rate in percent of the avatar's own, within these bounds (½× … 2×). */
  speechSpeedMin: -50,
  speechSpeedMax: 100,
} as const;

const unit = z.number().check(z.gte(0), z.lte(1));
const name = z.string().check(z.minLength(1), z.maxLength(AvatarActionLimits.attrValue));

export const ZAvatarMoodAction = z.object({
  kind: z.literal('mood'),
  mood: z.enum(AvatarMoods),
  /** 0–1; absent: the mood's usual strength. */
  intensity: z.optional(unit),
  /** How long it is held (ms); absent: until the next mood. */
  durationMs: z.optional(z.number().check(z.gte(0), z.lte(AvatarActionLimits.moodMs))),
});
export const ZAvatarGestureAction = z.object({
  kind: z.literal('gesture'),
  gesture: z.enum(AvatarGestures),
  intensity: z.optional(unit),
});
/** `<trl-anim>` with an animation id that is none of our gestures: a clip of the avatar's model, by name. */
export const ZAvatarAnimAction = z.object({
  kind: z.literal('anim'),
  id: name,
  type: z.optional(z.enum(['core', 'aux'])),
  immediate: z.optional(z.boolean()),
});
/** `<trl-morph>` on a morph target that is no mood: the model's target by name, to a value. */
export const ZAvatarMorphAction = z.object({
  kind: z.literal('morph'),
  name,
  value: z.optional(unit),
  durationMs: z.optional(z.number().check(z.gte(0), z.lte(AvatarActionLimits.moodMs))),
});
/** Any other tag of TrulienceTags, as written (lower-case attribute names). */
export const ZAvatarTagAction = z.object({
  kind: z.literal('tag'),
  tag: z.enum(TrulienceTags),
  attrs: z.record(z.string().check(z.maxLength(AvatarActionLimits.attrName)), z.string().check(z.maxLength(AvatarActionLimits.attrValue))),
});

export const ZAvatarAction = z.discriminatedUnion('kind', [ZAvatarMoodAction, ZAvatarGestureAction, ZAvatarAnimAction, ZAvatarMorphAction, ZAvatarTagAction]);
export type TAvatarAction = z.infer<typeof ZAvatarAction>;

export const isAvatarMood = (value: unknown): value is TAvatarMood => typeof value === 'string' && (AvatarMoods as readonly string[]).includes(value);
export const isAvatarGesture = (value: unknown): value is TAvatarGesture => typeof value === 'string' && (AvatarGestures as readonly string[]).includes(value);
