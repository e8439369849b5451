import { describe, expect, it } from 'vitest';
import { FaceDriver } from './face-driver';
import { describeCapabilities, detectProfile, targetWeights } from './rig-map';
import { VISEME_COUNT, visemeIndex, type Viseme } from './visemes';

const only = (v: Viseme, w = 1) => {
  const a = new Float32Array(VISEME_COUNT);
  a[visemeIndex[v]] = w;
  a[visemeIndex.sil] = 1 - w;
  return a;
};
const arkitNames = new Set(['jawOpen', 'mouthFunnel', 'mouthPucker', 'mouthClose', 'mouthSmileLeft', 'mouthSmileRight', 'eyeBlinkLeft', 'eyeBlinkRight', 'mouthRollLower']);

describe('rig mapping', () => {
  it('detects what a model can do from its target names', () => {
    expect(detectProfile(['viseme_aa', 'viseme_O', 'eyeBlinkLeft'])).toBe('oculus');
    expect(detectProfile(arkitNames)).toBe('arkit');
    expect(detectProfile(['mouthOpen'])).toBe('jaw');
    expect(detectProfile([], true)).toBe('vrm');
    expect(describeCapabilities(['viseme_aa', 'viseme_PP', 'eyeBlinkLeft'])).toEqual({ profile: 'oculus', visemes: ['PP', 'aa'], blink: true });
  });

  it('drives ARKit shapes with a recipe per viseme', () => {
    const face = new FaceDriver().update(0, only('aa'), 'speaking');
    const aa = targetWeights(face, 'arkit', arkitNames);
    expect(aa.get('jawOpen')).toBeGreaterThan(0.5);
    expect(aa.get('mouthPucker') ?? 0).toBe(0);
    const u = targetWeights(new FaceDriver().update(0, only('U'), 'speaking'), 'arkit', arkitNames);
    expect(u.get('mouthPucker')).toBeGreaterThan(0.8);
    expect(u.get('jawOpen')!).toBeLessThan(0.3);
    const pp = targetWeights(new FaceDriver().update(0, only('PP'), 'speaking'), 'arkit', arkitNames);
    expect(pp.get('mouthClose')).toBeGreaterThan(0.4);
  });

  it('drives VRM expressions aa/ih/ou/ee/oh and Oculus targets directly', () => {
    const names = new Set(['aa', 'ih', 'ou', 'ee', 'oh', 'blink', 'happy']);
    const o = targetWeights(new FaceDriver().update(0, only('O', 0.8), 'speaking'), 'vrm', names);
    expect(o.get('oh')).toBeCloseTo(0.8);
    const oc = targetWeights(new FaceDriver().update(0, only('E', 0.6), 'speaking'), 'oculus', new Set(['viseme_E', 'viseme_sil']));
    expect(oc.get('viseme_E')).toBeCloseTo(0.6);
    expect(oc.get('viseme_sil')).toBeCloseTo(0.4);
  });

  it('writes only targets the model has', () => {
    const out = targetWeights(new FaceDriver().update(0, only('aa'), 'speaking'), 'arkit', new Set(['jawOpen']));
    expect([...out.keys()]).toEqual(['jawOpen']);
  });
});

describe('FaceDriver', () => {
  it('blinks now and then, opens the jaw with the visemes and relaxes when speech stops', () => {
    const d = new FaceDriver(7);
    let blinks = 0;
    let wasClosed = false;
    for (let t = 0; t < 20_000; t += 16) {
      const s = d.update(t, null, 'idle');
      const closed = s.blinkLeft > 0.9;
      if (closed && !wasClosed) blinks++;
      wasClosed = closed;
    }
    expect(blinks).toBeGreaterThanOrEqual(3);
    expect(blinks).toBeLessThanOrEqual(12);
    const s = d.update(20_016, only('aa'), 'speaking');
    expect(s.jaw).toBeGreaterThan(0.6);
    let t = 20_032;
    for (; t < 20_400; t += 16) d.update(t, null, 'listening');
    expect(d.state.jaw).toBeLessThan(0.05);
  });

  it('tilts the head when listening', () => {
    const d = new FaceDriver(3);
    for (let t = 0; t < 3000; t += 16) d.update(t, null, 'listening');
    expect(d.state.headRoll).toBeGreaterThan(0.03);
  });
});
