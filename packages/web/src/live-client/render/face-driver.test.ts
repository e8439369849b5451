import { describe, expect, it } from 'vitest';
import { FaceDriver, GESTURE_BLEND_MS, GESTURE_MS, type FaceState, type Pose } from './face-driver';
import { armPoseOf } from './gesture-pose';
import { AvatarStage } from './stage';
import { VISEMES, visemeIndex } from './visemes';
import { VisemeTimeline } from './viseme-timeline';

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

  it('on a slow device (frames 250 ms apart, longer than a blink) the eyes are still drawn shut within 6 s and then every few seconds', () => {
    const d = new FaceDriver(7);
    const shut: number[] = [];
    for (let t = 0; t <= 20_000; t += 250) if (d.update(t, null, 'idle').blinkLeft > 0.5) shut.push(t);
    expect(shut[0]).toBeLessThan(6000);
    expect(shut.length).toBeGreaterThanOrEqual(3);
    // Never held shut for more than one such frame in a row (a blink, not a doze).
    for (let i = 1; i < shut.length; i++) expect(shut[i]! - shut[i - 1]!).toBeGreaterThan(250);
  });

  it('a gesture that cuts another short takes over from where the arm was, without a snap to rest', () => {
    const d = new FaceDriver(5);
    run(d, 0, 1000);
    d.playGesture('point');
    run(d, 1016, 1016 + GESTURE_MS.point / 2);
    const before = d.update(1016 + GESTURE_MS.point / 2 + 16, null, 'idle');
    const pointing = armPoseOf(before, -1);
    d.playGesture('wave', 0.8);
    const first = d.update(1016 + GESTURE_MS.point / 2 + 32, null, 'idle');
    expect(first.gesture).toBe('wave');
    expect(first.gestureIntensity).toBeCloseTo(0.8, 5);
    expect(first.gestureFrom?.gesture).toBe('point');
    // The first frame of the new gesture is still (almost) where the point was, not at rest.
    const next = armPoseOf(first, -1);
    expect(Math.abs(next.upper[0] - pointing.upper[0])).toBeLessThan(0.05);
    expect(Math.abs(next.upper[0])).toBeGreaterThan(0.5);
    // Frame to frame the arm never jumps, and after the blend it is the wave alone.
    let last = next;
    for (let t = 1016 + GESTURE_MS.point / 2 + 48; t < 1016 + GESTURE_MS.point / 2 + 32 + GESTURE_BLEND_MS + 64; t += 16) {
      const f = d.update(t, null, 'idle');
      const p = armPoseOf(f, -1);
      expect(Math.abs(p.upper[0] - last.upper[0]) + Math.abs(p.upper[2] - last.upper[2])).toBeLessThan(0.2);
      last = p;
    }
    const after = d.update(1016 + GESTURE_MS.point / 2 + 32 + GESTURE_BLEND_MS + 80, null, 'idle');
    expect(after.gestureFrom).toBeNull();
  });

  it('a gesture tells how far through it is (the arms follow it); a shrug tilts the head and lifts the brows', () => {
    const d = new FaceDriver(5);
    run(d, 0, 1000);
    d.playGesture('wave');
    expect(d.update(1016, null, 'idle').gestureProgress).toBe(0);
    expect(d.update(1016 + GESTURE_MS.wave / 2, null, 'idle').gestureProgress).toBeCloseTo(0.5, 2);
    expect(run(d, 1032 + GESTURE_MS.wave / 2, 1100 + GESTURE_MS.wave).face.gestureProgress).toBe(0);
    const plain = run(new FaceDriver(5), 0, 1000 + GESTURE_MS.shrug / 2).face;
    const s = new FaceDriver(5);
    run(s, 0, 1000);
    s.playGesture('shrug');
    const mid = run(s, 1016, 1000 + GESTURE_MS.shrug / 2).face;
    expect(mid.browUp).toBeGreaterThan(plain.browUp + 0.2);
    expect(mid.headRoll).toBeGreaterThan(plain.headRoll + 0.05);
  });

  it('a wave and a point show in the head and eyes too (the kinds without arms show them so), and leave nothing behind', () => {
    const at = (gesture: 'wave' | 'point' | null) => {
      const d = new FaceDriver(5);
      run(d, 0, 1000);
      if (gesture) d.playGesture(gesture);
      return { mid: run(d, 1016, 1000 + GESTURE_MS.wave / 2).face, after: run(d, 1000 + GESTURE_MS.wave / 2 + 16, 1100 + 2 * GESTURE_MS.wave).face };
    };
    const plain = at(null);
    const wave = at('wave');
    expect(wave.mid.headRoll).toBeGreaterThan(plain.mid.headRoll + 0.04);
    expect(wave.mid.browUp).toBeGreaterThan(plain.mid.browUp + 0.15);
    const point = at('point');
    // Towards the figure's right (−yaw: the side its right arm points to).
    expect(point.mid.headYaw).toBeLessThan(plain.mid.headYaw - 0.08);
    expect(point.mid.eyeYaw).toBeLessThan(plain.mid.eyeYaw - 0.08);
    // Afterwards the same face as without the gesture (nothing fed back).
    for (const g of [wave, point]) {
      expect(g.after.headYaw).toBeCloseTo(plain.after.headYaw, 3);
      expect(g.after.eyeYaw).toBeCloseTo(plain.after.eyeYaw, 3);
      expect(g.after.headRoll).toBeCloseTo(plain.after.headRoll, 3);
    }
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

/** Runs a driver at 60 fps over [from, to] in one pose, with an optional voice (the "aa" weight at each time); every frame's state. */
function trace(driver: FaceDriver, from: number, to: number, pose: Pose, voice?: (t: number) => number) {
  const frames: (FaceState & { t: number })[] = [];
  const speech = new Float32Array(VISEMES.length);
  for (let t = from; t <= to; t += 16) {
    let weights: Float32Array | null = null;
    if (voice) {
      const open = voice(t);
      speech.fill(0);
      speech[visemeIndex.aa] = open;
      speech[visemeIndex.sil] = 1 - open;
      weights = speech;
    }
    frames.push({ ...driver.update(t, weights, pose), t });
  }
  return frames;
}
const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Times at which a signal rises through a level. */
const crossings = (frames: (FaceState & { t: number })[], value: (f: FaceState) => number, level: number) =>
  frames.filter((f, i) => i > 0 && value(frames[i - 1]!) < level && value(f) >= level).map((f) => f.t);
/** Syllables at 4 a second, every third one stressed (opens wider). */
const voice = (t: number) => {
  const syllable = Math.floor(t / 250);
  const phase = (t % 250) / 250;
  return Math.sin(Math.PI * phase) * (syllable % 3 === 0 ? 0.95 : 0.4);
};

describe('face driver: life', () => {
  it('idle: the eyes blink within 6 s and then every 2–6 s (now and then twice); they never stay still between saccades', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const frames = trace(new FaceDriver(seed), 0, 60_000, 'idle');
      const blinks = crossings(frames, (f) => f.blinkLeft, 0.9);
      expect(blinks[0]).toBeLessThan(6000);
      // Human rates: 10–30 a minute (a double blink counts twice).
      expect(blinks.length).toBeGreaterThanOrEqual(10);
      expect(blinks.length).toBeLessThanOrEqual(32);
      const gaps = blinks.slice(1).map((t, i) => t - blinks[i]!);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(6500);
      // Micro-saccades: in any second the eyes move by more than a hair.
      for (let s = 1; s < 59; s++) {
        const second = frames.filter((f) => f.t >= s * 1000 && f.t < (s + 1) * 1000);
        expect(spread(second.map((f) => f.eyeYaw)) + spread(second.map((f) => f.eyePitch))).toBeGreaterThan(0.002);
      }
    }
  });

  it('idle: the body shifts its weight now and then', () => {
    const frames = trace(new FaceDriver(4), 0, 40_000, 'idle');
    expect(spread(frames.map((f) => f.lean))).toBeGreaterThan(0.01);
    expect(Math.max(...frames.map((f) => Math.abs(f.lean)))).toBeLessThan(0.03);
  });

  it('listening: the eyes stay on the visitor, the face is attentive and the head nods now and then', () => {
    const driver = new FaceDriver(7);
    trace(driver, 0, 1000, 'idle');
    const frames = trace(driver, 1016, 16_000, 'listening').filter((f) => f.t > 1500);
    expect(Math.max(...frames.map((f) => Math.hypot(f.eyeYaw, f.eyePitch)))).toBeLessThan(0.035);
    expect(mean(frames.map((f) => f.smile))).toBeGreaterThan(0.25);
    expect(mean(frames.map((f) => f.browUp))).toBeGreaterThan(0.1);
    // Nods: the head dips by a few degrees, at least twice in 15 s and never more than every 2.5 s.
    const pitch = frames.map((f) => f.headPitch);
    const base = mean(pitch);
    const nods = crossings(frames, (f) => f.headPitch - base, 0.025);
    expect(nods.length).toBeGreaterThanOrEqual(2);
    expect(nods.length).toBeLessThanOrEqual(6);
  });

  it('thinking looks different from listening: the gaze goes up and aside and stays, brows drawn, no smile', () => {
    const listening = trace(new FaceDriver(9), 0, 8000, 'listening').filter((f) => f.t > 1000);
    const thinking = trace(new FaceDriver(9), 0, 8000, 'thinking').filter((f) => f.t > 1000);
    expect(mean(thinking.map((f) => f.eyePitch))).toBeGreaterThan(mean(listening.map((f) => f.eyePitch)) + 0.08);
    expect(mean(thinking.map((f) => Math.abs(f.eyeYaw)))).toBeGreaterThan(0.08);
    expect(mean(thinking.map((f) => f.smile))).toBeLessThan(mean(listening.map((f) => f.smile)) - 0.2);
    expect(mean(thinking.map((f) => f.browUp))).toBeLessThan(mean(listening.map((f) => f.browUp)));
  });

  it('a pause in the voice (<trl-break>: silence between two words): the mouth closes and stays closed, the face goes on living', () => {
    // What the worker sends around a 1.5 s pause: visemes up to 1 s, none until 2.5 s, then more.
    const timeline = new VisemeTimeline();
    const cues: { t: number; v: string; d: number }[] = [];
    for (let t = 0; t < 1000; t += 100) cues.push({ t, v: t % 200 ? 'aa' : 'O', d: 100 });
    for (let t = 2500; t < 3500; t += 100) cues.push({ t, v: 'aa', d: 100 });
    timeline.add(cues);
    const driver = new FaceDriver(13);
    const frames: (FaceState & { t: number })[] = [];
    for (let t = 0; t <= 3500; t += 16) frames.push({ ...driver.update(t, timeline.weightsAt(t), 'speaking'), t });
    const pause = frames.filter((f) => f.t >= 1200 && f.t <= 2400);
    expect(Math.max(...frames.filter((f) => f.t < 1000).map((f) => f.jaw))).toBeGreaterThan(0.3);
    expect(Math.max(...pause.map((f) => f.jaw))).toBeLessThan(0.02);
    expect(Math.max(...frames.filter((f) => f.t > 2500).map((f) => f.jaw))).toBeGreaterThan(0.3);
    // Not frozen: the head and eyes move through the pause.
    expect(spread(pause.map((f) => f.headYaw)) + spread(pause.map((f) => f.headPitch))).toBeGreaterThan(0.005);
    expect(spread(pause.map((f) => f.eyeYaw)) + spread(pause.map((f) => f.eyePitch))).toBeGreaterThan(0.002);
  });

  it('speaking: brows and head beat on stressed syllables, the gaze leaves and comes back, the head moves more than when listening', () => {
    const driver = new FaceDriver(11);
    const frames = trace(driver, 0, 12_000, 'speaking', voice).filter((f) => f.t > 500);
    // One stressed syllable every 750 ms: brow raises follow them, not the unstressed ones.
    const raises = crossings(frames, (f) => f.browUp, 0.42);
    expect(raises.length).toBeGreaterThanOrEqual(10);
    expect(raises.length).toBeLessThanOrEqual(17);
    for (const t of raises) expect((t % 750) / 750, `a brow raise at ${t} ms`).toBeLessThan(0.45);
    // The gaze is away part of the time, on the visitor the rest, and comes back each time.
    const away = frames.filter((f) => Math.abs(f.eyeYaw) > 0.08);
    expect(away.length / frames.length).toBeGreaterThan(0.08);
    expect(away.length / frames.length).toBeLessThan(0.5);
    expect(crossings(frames, (f) => Math.abs(f.eyeYaw), 0.08).length).toBeGreaterThanOrEqual(2);
    expect(frames.filter((f) => Math.abs(f.eyeYaw) < 0.02).length / frames.length).toBeGreaterThan(0.4);
    const listening = trace(new FaceDriver(11), 0, 12_000, 'listening').filter((f) => f.t > 500);
    const motion = (fs: FaceState[]) => mean(fs.slice(1).map((f, i) => Math.abs(f.headPitch - fs[i]!.headPitch) + Math.abs(f.headYaw - fs[i]!.headYaw)));
    expect(motion(frames)).toBeGreaterThan(motion(listening) * 1.5);
  });
});
