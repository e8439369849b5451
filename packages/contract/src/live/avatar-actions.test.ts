import { describe, expect, it } from 'vitest';
import { AvatarGestures, AvatarMoods, ZAvatarAction, isAvatarGesture, isAvatarMood } from './avatar-actions.js';
import { ZWorkerFrame } from './protocol.js';

describe('avatar actions', () => {
  it('the six moods and five gestures of issue 28, and only those', () => {
    expect(AvatarMoods).toEqual(['neutral', 'happy', 'sad', 'surprised', 'concerned', 'thinking']);
    expect(AvatarGestures).toEqual(['nod', 'shake', 'wave', 'shrug', 'point']);
    expect(isAvatarMood('happy')).toBe(true);
    expect(isAvatarMood('angry')).toBe(false);
    expect(isAvatarGesture('wave')).toBe(true);
    expect(isAvatarGesture('dance')).toBe(false);
  });

  it('reads each kind and refuses what is outside its bounds', () => {
    for (const ok of [
      { kind: 'mood', mood: 'sad', intensity: 0.4, durationMs: 3000 },
      { kind: 'gesture', gesture: 'nod' },
      { kind: 'anim', id: 'Routine_07', type: 'core', immediate: true },
      { kind: 'morph', name: 'browInnerUp', value: 0.5 },
      { kind: 'tag', tag: 'trl-break', attrs: { duration: '1.0' } },
    ]) expect(ZAvatarAction.safeParse(ok).success, JSON.stringify(ok)).toBe(true);
    for (const bad of [
      { kind: 'mood', mood: 'angry' },
      { kind: 'mood', mood: 'happy', intensity: 2 },
      { kind: 'mood', mood: 'happy', durationMs: 3_600_000 },
      { kind: 'gesture', gesture: 'backflip' },
      { kind: 'anim', id: '' },
      { kind: 'tag', tag: 'trl-unknown', attrs: {} },
      { kind: 'tag', tag: 'trl-config', attrs: { speechspeed: 'x'.repeat(201) } },
    ]) expect(ZAvatarAction.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('travels in the worker’s action frame, with or without its time', () => {
    expect(ZWorkerFrame.safeParse({ type: 'action', utt: 3, t: 420, action: { kind: 'gesture', gesture: 'wave' }, source: 'tag' }).success).toBe(true);
    expect(ZWorkerFrame.safeParse({ type: 'action', utt: 3, action: { kind: 'mood', mood: 'happy' }, source: 'cue' }).success).toBe(true);
    expect(ZWorkerFrame.safeParse({ type: 'action', utt: 3, action: { kind: 'mood', mood: 'happy' }, source: 'host' }).success).toBe(false);
  });
});
