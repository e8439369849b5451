import { describe, expect, it } from 'vitest';
import { FaceDriver, GESTURE_MS, type FaceState, type Pose } from './face-driver';
import { AvatarStage } from './stage';

/** Runs a driver at 60 fps from `from` to `to` ms; the last state, and the largest |head| seen. */
function run(driver: FaceDriver, from: number, to: number, pose: Pose = 'idle') {
  let face: FaceState = driver.state;
  let headPitch = 0;
  let headYaw = 0;
  for (let t = from; t <= to; t += 16) {
    face = driver.update(t, null, pose);
    headPitch = Math.max(headPitch, Math.abs(face.headPitch));
    headYaw = Math.max(headYaw, Math.abs(face.headYaw));
  }
  return { face: { ...face }, headPitch, headYaw };
}

describe('face driver: moods and gestures of avatar actions', () => {
  it('a mood moves the smile and brows within half a second, and lets go when its time is over', () => {
    const plain = run(new FaceDriver(3), 0, 3000).face;
    const happy = new FaceDriver(3);
    run(happy, 0, 1000);
    happy.setMood('happy', 1, 2000);
    const shown = run(happy, 1016, 1600).face;
    expect(shown.mood).toBe('happy');
    expect(shown.moodWeight).toBeGreaterThan(0.7);
    expect(shown.smile).toBeGreaterThan(plain.smile + 0.3);
    const after = run(happy, 1616, 5000).face;
    expect(after.mood).toBe('neutral');
    expect(Math.abs(after.smile - plain.smile)).toBeLessThan(0.05);

    const sad = new FaceDriver(3);
    sad.setMood('surprised');
    const surprised = run(sad, 0, 1000).face;
    expect(surprised.browUp).toBeGreaterThan(plain.browUp + 0.3);
    sad.setMood('concerned', 0.8);
    const concerned = run(sad, 1016, 2500).face;
    expect(concerned.mood).toBe('concerned');
    expect(concerned.smile).toBeLessThan(plain.smile - 0.1);
    // Without a duration it stays.
    expect(run(sad, 2516, 20_000).face.mood).toBe('concerned');
    sad.setMood('neutral');
    expect(run(sad, 20_016, 22_000).face.mood).toBe('neutral');
  });

  it('a nod moves the head up and down, a shake side to side; both end', () => {
    const still = run(new FaceDriver(5), 0, 2000);
    const nodding = new FaceDriver(5);
    run(nodding, 0, 1000);
    nodding.playGesture('nod');
    const nod = run(nodding, 1016, 1000 + GESTURE_MS.nod);
    expect(nod.headPitch).toBeGreaterThan(still.headPitch + 0.05);
    expect(run(nodding, 1016 + GESTURE_MS.nod, 2500).face.gesture).toBeNull();
    const shaking = new FaceDriver(5);
    shaking.playGesture('shake');
    const first = shaking.update(0, null, 'idle');
    expect(first.gesture).toBe('shake');
    expect(run(shaking, 16, GESTURE_MS.shake).headYaw).toBeGreaterThan(still.headYaw + 0.05);
  });
});

describe('stage: avatar actions', () => {
  it('does an action now or at its time in the voice, records every kind on the test hook', () => {
    const stage = new AvatarStage({ avatarConfigUrl: null, dhType: 0, photoUrl: null });
    stage.act({ kind: 'tag', tag: 'trl-config', attrs: { speechspeed: '20' } });
    stage.actAt(4, 1200, { kind: 'gesture', gesture: 'wave' });
    stage.actAt(4, 300, { kind: 'mood', mood: 'happy' });
    stage.actAt(5, 100, { kind: 'gesture', gesture: 'shrug' });
    expect(stage.probe.actions.map((a) => a.action.kind)).toEqual(['tag']);
    // Cut off at 500 ms: what came before is done, what it did not reach is not.
    stage.interrupt(4, 500);
    expect(stage.probe.actions.map((a) => a.action.kind)).toEqual(['tag', 'mood']);
    // Heard to its end: the rest is done.
    stage.ended(5, 50, false);
    expect(stage.probe.actions.map((a) => a.action)).toEqual([
      { kind: 'tag', tag: 'trl-config', attrs: { speechspeed: '20' } },
      { kind: 'mood', mood: 'happy' },
      { kind: 'gesture', gesture: 'shrug' },
    ]);
    stage.dispose();
  });
});
