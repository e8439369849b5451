import { AnimationMixer, LoopOnce, PropertyBinding, type AnimationAction, type AnimationClip, type Object3D } from 'three';

/**
 * What `<trl-anim>` and `<trl-morph>` do on an uploaded model (issue 28, ADR 088): its own
 * animation clips played by name, and its own morph targets (or VRM expressions) set by name.
 *
 * Clips follow Trulience's two modes. `core` is the whole body, one at a time: a second core clip
 * waits for the one playing (at most four wait) unless it is `immediate`, when it takes over at
 * once, the two cross-faded. `aux` clips play beside it. Every clip plays once, faded in and out
 * (FADE_S), so the figure never snaps between its clip and the live pose the page draws. The
 * bones a playing clip moves are told to the renderer (`moving`), which then lays the head's and
 * eyes' live motion on top of the clip's pose instead of the rest pose, and leaves the arms to it.
 */
export const FADE_S = 0.25;
const MAX_QUEUED = 4;

export interface ClipPlayer {
  /** Starts (or queues) the clip named `id`; false when the model has no such clip. */
  play(id: string, type: 'core' | 'aux', immediate: boolean): boolean;
  /** Advances the clips by `dt` seconds and writes their bones. */
  update(dt: number): void;
  /** The nodes a playing clip writes this frame. */
  readonly moving: ReadonlySet<Object3D>;
  /** The names of the clips playing now (for the test hook). */
  playing(): string[];
  dispose(): void;
}

/** A player for the model's clips, or null when it has none. */
export function createClipPlayer(root: Object3D, clips: readonly AnimationClip[]): ClipPlayer | null {
  const usable = clips.filter((c) => c.duration > 0 && c.tracks.length > 0);
  if (usable.length === 0) return null;
  const mixer = new AnimationMixer(root);
  const nodesOf = new Map<AnimationClip, Set<Object3D>>();
  for (const clip of usable) {
    const nodes = new Set<Object3D>();
    for (const track of clip.tracks) {
      const node = PropertyBinding.findNode(root, PropertyBinding.parseTrackName(track.name).nodeName) as Object3D | null;
      if (node) nodes.add(node);
    }
    nodesOf.set(clip, nodes);
  }
  const find = (id: string) => usable.find((c) => c.name === id) ?? usable.find((c) => c.name.toLowerCase() === id.toLowerCase()) ?? null;

  type Running = { clip: AnimationClip; action: AnimationAction; fadingOut: boolean };
  let core: Running | null = null;
  const queue: AnimationClip[] = [];
  const aux = new Map<AnimationClip, Running>();
  /** Core clips fading out after another took over (they still write their bones). */
  const leaving: Running[] = [];
  const moving = new Set<Object3D>();

  /** One action per clip (the mixer's): starting a clip again restarts it wherever it was playing. */
  const start = (clip: AnimationClip): Running => {
    for (let i = leaving.length - 1; i >= 0; i--) if (leaving[i]!.clip === clip) leaving.splice(i, 1);
    aux.delete(clip);
    const action = mixer.clipAction(clip);
    action.reset();
    action.setLoop(LoopOnce, 1);
    action.clampWhenFinished = true;
    action.setEffectiveWeight(1);
    action.fadeIn(Math.min(FADE_S, clip.duration / 3));
    action.play();
    return { clip, action, fadingOut: false };
  };
  const startCore = (clip: AnimationClip) => {
    if (core && core.clip !== clip) {
      if (!core.fadingOut) core.action.fadeOut(Math.min(FADE_S, core.clip.duration / 3));
      leaving.push(core);
    }
    core = start(clip);
  };
  /** Fades a clip out over its last FADE_S; true once it is over (stopped, weight 0). */
  const advance = (r: Running) => {
    const fade = Math.min(FADE_S, r.clip.duration / 3);
    if (!r.fadingOut && r.action.time >= r.clip.duration - fade) {
      r.fadingOut = true;
      r.action.fadeOut(fade);
    }
    const over = r.fadingOut && r.action.getEffectiveWeight() <= 0;
    if (over) r.action.stop();
    return over;
  };

  return {
    play(id, type, immediate) {
      const clip = find(id);
      if (!clip) return false;
      if (type === 'aux') {
        if (core?.clip !== clip) aux.set(clip, start(clip));
      } else if (core && !immediate) {
        if (queue.length < MAX_QUEUED) queue.push(clip);
      } else {
        startCore(clip);
      }
      return true;
    },
    update(dt) {
      mixer.update(Math.max(0, dt));
      for (let i = leaving.length - 1; i >= 0; i--) {
        const r = leaving[i]!;
        if (r.action.getEffectiveWeight() <= 0) {
          r.action.stop();
          leaving.splice(i, 1);
        }
      }
      for (const [clip, r] of aux) if (advance(r)) aux.delete(clip);
      if (core) {
        const over = advance(core);
        // The next core clip starts as the one playing fades out: the two are cross-faded.
        if (core.fadingOut && queue.length > 0) startCore(queue.shift()!);
        else if (over) core = null;
      }
      moving.clear();
      for (const r of [core, ...leaving, ...aux.values()]) if (r) for (const n of nodesOf.get(r.clip)!) moving.add(n);
    },
    moving,
    playing: () => [core, ...leaving, ...aux.values()].flatMap((r) => (r ? [r.clip.name] : [])),
    dispose() {
      mixer.stopAllAction();
      mixer.uncacheRoot(root);
    },
  };
}

/**
 * `<trl-morph name value duration>` on the model's own targets: the target eases to `value` over
 * EASE_MS and stays there — for `duration` when one is given, then eases back — until another
 * morph of the same name (value 0 lets it go). It is laid over what the face driver writes
 * (visemes, blinks, moods): the larger of the two wins, so a held smile does not stop the lips.
 */
export const EASE_MS = 250;

export interface MorphOverrides {
  set(name: string, value: number, durationMs: number | undefined, now: number): void;
  /** Writes the overrides' weights at `now` into `targets` (only names the model has). */
  apply(targets: Map<string, number>, has: (name: string) => boolean, now: number): void;
  readonly size: number;
}

export function createMorphOverrides(): MorphOverrides {
  const held = new Map<string, { from: number; to: number; at: number; until: number | null }>();
  const weightAt = (m: { from: number; to: number; at: number; until: number | null }, now: number) => {
    const ease = (u: number) => {
      const x = Math.min(1, Math.max(0, u));
      return x * x * (3 - 2 * x);
    };
    if (m.until !== null && now >= m.until) return m.to * (1 - ease((now - m.until) / EASE_MS));
    return m.from + (m.to - m.from) * ease((now - m.at) / EASE_MS);
  };
  return {
    set(name, value, durationMs, now) {
      const prev = held.get(name);
      const from = prev ? weightAt(prev, now) : 0;
      held.set(name, { from, to: Math.min(1, Math.max(0, value)), at: now, until: durationMs === undefined ? null : now + EASE_MS + durationMs });
    },
    apply(targets, has, now) {
      for (const [name, m] of held) {
        const w = weightAt(m, now);
        const done = (m.until !== null && now >= m.until + EASE_MS) || (m.to === 0 && now >= m.at + EASE_MS);
        if (done) held.delete(name);
        if (!has(name) || w <= 0) continue;
        targets.set(name, Math.max(targets.get(name) ?? 0, w));
      }
    },
    get size() {
      return held.size;
    },
  };
}
