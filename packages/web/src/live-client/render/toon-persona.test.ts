import { Box3, Vector3, type Mesh, type ShaderMaterial, type Vector2 } from 'three';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FaceDriver, type FaceState } from './face-driver';
import { buildToonPersona, type ToonCharacter } from './toon-persona';
import { readRecipe } from './toon-recipe';
import { VISEMES, type Viseme } from './visemes';

const recipe = (body: 'upper' | 'full', hairStyle: 'long' | 'short' | 'bun' = 'long') =>
  readRecipe({ format: 'persona-toon', version: 1, name: 'T', body, build: 'f', hairStyle, colours: { skin: '#f1c9a5', hair: '#3b2314', top: '#4f46e5', eyes: '#3f6b3a', lips: '#b85c5c' } });

/** The mouth decal's vertices as drawn: base plus each morph target times its weight. */
function drawn(mesh: Mesh): Float32Array {
  const base = mesh.geometry.attributes.position!.array as Float32Array;
  const out = Float32Array.from(base);
  const morphs = mesh.geometry.morphAttributes.position ?? [];
  morphs.forEach((m, i) => {
    const w = mesh.morphTargetInfluences![i]!;
    if (w) for (let k = 0; k < out.length; k++) out[k]! += w * (m.array[k] as number);
  });
  return out;
}
const height = (p: Float32Array) => {
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = 1; k < p.length; k += 3) {
    lo = Math.min(lo, p[k]!);
    hi = Math.max(hi, p[k]!);
  }
  return hi - lo;
};
const width = (p: Float32Array) => {
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = 0; k < p.length; k += 3) {
    lo = Math.min(lo, p[k]!);
    hi = Math.max(hi, p[k]!);
  }
  return hi - lo;
};

function faceWith(edit: (f: FaceState) => void): FaceState {
  const f = new FaceDriver(3).update(0, null, 'idle');
  f.blinkLeft = f.blinkRight = 0;
  edit(f);
  return f;
}
const only = (v: Viseme) => new Map([[`viseme_${v}`, 1]]);

describe('toon persona (built from a recipe)', () => {
  let upper: ToonCharacter;
  // jsdom has no 2D canvas (and says so on every call): the textures stay blank here.
  beforeEach(() => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
  });
  beforeAll(() => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    upper = buildToonPersona(recipe('upper'), { software: true });
  });

  it('answers to the targets the rig map writes', () => {
    for (const v of VISEMES) expect(upper.names.has(`viseme_${v}`)).toBe(true);
    expect(upper.names.has('eyeBlinkLeft')).toBe(true);
    expect(upper.stats.triangles).toBeGreaterThan(5000);
  });

  it('every viseme changes the mouth, and "aa" opens it wide', () => {
    const face = faceWith(() => undefined);
    upper.apply(face, new Map());
    const rest = drawn(upper.mouth);
    const shapes = new Map<string, Float32Array>();
    for (const v of VISEMES.filter((x) => x !== 'sil')) {
      upper.apply(face, only(v));
      const p = drawn(upper.mouth);
      let moved = 0;
      for (let k = 0; k < p.length; k++) moved = Math.max(moved, Math.abs(p[k]! - rest[k]!));
      expect(moved, v).toBeGreaterThan(0.001);
      shapes.set(v, p);
    }
    // Open vowels open: aa most, round ones narrower than wide ones.
    expect(height(shapes.get('aa')!)).toBeGreaterThan(0.02);
    expect(height(rest)).toBeLessThan(0.004);
    expect(width(shapes.get('U')!)).toBeLessThan(width(shapes.get('E')!) * 0.6);
    expect(height(shapes.get('O')!)).toBeGreaterThan(height(shapes.get('I')!));
  });

  it('the blink weight closes the eyes, through a half-closed frame', () => {
    const sclera = () => (upper.head.children.filter((c) => (c as Mesh).material && ((c as Mesh).material as ShaderMaterial).uniforms?.sclera) as Mesh[]).map((m) => (m.material as ShaderMaterial).uniforms.sclera!.value as unknown);
    upper.apply(faceWith(() => undefined), new Map());
    expect(upper.debug.blinkFrame).toEqual([0, 0]);
    const open = sclera();
    upper.apply(faceWith((f) => (f.blinkLeft = f.blinkRight = 0.5)), new Map());
    expect(upper.debug.blinkFrame).toEqual([1, 1]);
    upper.apply(faceWith((f) => (f.blinkLeft = f.blinkRight = 1)), new Map());
    expect(upper.debug.blinkFrame).toEqual([2, 2]);
    expect(sclera()).not.toEqual(open);
    upper.apply(faceWith((f) => (f.blinkLeft = 1)), new Map());
    expect(upper.debug.blinkFrame).toEqual([0, 2]);
  });

  it('the irises follow the gaze, the brows and cheeks the mood', () => {
    const eyes = upper.head.children.filter((c) => ((c as Mesh).material as ShaderMaterial).uniforms?.gaze) as Mesh[];
    expect(eyes).toHaveLength(2);
    upper.apply(faceWith((f) => ((f.eyeYaw = 0.1), (f.eyePitch = -0.05))), new Map());
    const g = (eyes[0]!.material as ShaderMaterial).uniforms.gaze!.value as Vector2;
    expect(g.x).toBeGreaterThan(0.05);
    expect(g.y).toBeLessThan(0);
    const morph = (name: string) => upper.head.children.map((c) => (c as Mesh).morphTargetDictionary?.[name] !== undefined ? (c as Mesh).morphTargetInfluences![(c as Mesh).morphTargetDictionary![name]!]! : null).filter((x): x is number => x !== null);
    upper.apply(faceWith((f) => ((f.mood = 'sad'), (f.moodWeight = 1), (f.browUp = 0.55), (f.smile = 0))), new Map());
    expect(Math.min(...morph('inner'))).toBeGreaterThan(0.9);
    expect(Math.max(...morph('mouthFrown'))).toBeGreaterThan(0.5);
    upper.apply(faceWith((f) => ((f.mood = 'happy'), (f.moodWeight = 1), (f.smile = 0.9))), new Map());
    expect(Math.min(...morph('raise'))).toBeGreaterThan(0.8);
    expect(Math.max(...morph('mouthSmile'))).toBeGreaterThan(0.8);
    expect(Math.max(...morph('inner'))).toBe(0);
  });

  it('open eyes show the mood: smiling, heavy-lidded, wide; the brows knit in concern', () => {
    const sclera = () => (upper.head.children.filter((c) => ((c as Mesh).material as ShaderMaterial).uniforms?.sclera) as Mesh[]).map((m) => (m.material as ShaderMaterial).uniforms.sclera!.value as unknown);
    const morph = (name: string) => upper.head.children.map((c) => ((c as Mesh).morphTargetDictionary?.[name] !== undefined ? (c as Mesh).morphTargetInfluences![(c as Mesh).morphTargetDictionary![name]!]! : null)).filter((x): x is number => x !== null);
    upper.apply(faceWith((f) => (f.smile = 0)), new Map());
    const open = sclera();
    upper.apply(faceWith((f) => ((f.mood = 'happy'), (f.moodWeight = 1), (f.smile = 0.9))), new Map());
    const smiling = sclera();
    expect(smiling[0]).not.toBe(open[0]);
    upper.apply(faceWith((f) => ((f.mood = 'sad'), (f.moodWeight = 1), (f.smile = 0))), new Map());
    const heavy = sclera();
    expect(heavy[0]).not.toBe(open[0]);
    expect(heavy[0]).not.toBe(smiling[0]);
    // A blink still closes them (the blink frame wins over the mood's).
    upper.apply(faceWith((f) => ((f.mood = 'happy'), (f.moodWeight = 1), (f.smile = 0.9), (f.blinkLeft = f.blinkRight = 1))), new Map());
    expect(upper.debug.blinkFrame).toEqual([2, 2]);
    upper.apply(faceWith((f) => ((f.mood = 'surprised'), (f.moodWeight = 1), (f.smile = 0))), new Map());
    expect(morph('wide')).toEqual([1, 1]);
    upper.apply(faceWith((f) => ((f.mood = 'concerned'), (f.moodWeight = 1), (f.smile = 0))), new Map());
    expect(morph('wide')).toEqual([0, 0]);
    expect(Math.min(...morph('knit'))).toBeGreaterThan(0.9);
    upper.apply(faceWith(() => undefined), new Map());
    expect(Math.max(...morph('knit'))).toBe(0);
  });

  it('the head turns with the driver, from the neck', () => {
    upper.apply(faceWith((f) => (f.headYaw = 0.2)), new Map());
    expect(upper.head.parent!.rotation.y).toBeCloseTo(0.12, 3);
    expect(upper.head.parent!.parent!.rotation.y).toBeCloseTo(0.08, 3);
    // The weight shift leans the whole person a little, from the floor.
    upper.apply(faceWith((f) => (f.lean = 0.02)), new Map());
    expect(upper.root.rotation.z).toBeCloseTo(0.01, 4);
  });

  it('gestures move the arms: a wave raises the right hand above the shoulder and swings it, a point reaches forward, a shrug lifts both shoulders; then they hang again', () => {
    const arm = (name: string) => upper.root.getObjectByName(name)!;
    const box = (name: string) => {
      upper.root.updateMatrixWorld(true);
      return new Box3().setFromObject(arm(name));
    };
    const at = (gesture: FaceState['gesture'], progress: number) => upper.apply(faceWith((f) => ((f.gesture = gesture), (f.gestureProgress = progress), (f.gestureIntensity = 1))), new Map());
    at(null, 0);
    const rest = { fore: box('rightLowerArm'), shoulder: arm('rightUpperArm').position.y, left: box('leftLowerArm') };
    at('wave', 0.5);
    const waving = box('rightLowerArm');
    expect(waving.max.y).toBeGreaterThan(rest.shoulder + 0.1);
    expect(box('leftLowerArm').equals(rest.left)).toBe(true);
    at('wave', 0.56);
    expect(box('rightLowerArm').getCenter(new Vector3()).distanceTo(waving.getCenter(new Vector3()))).toBeGreaterThan(0.03);
    at('point', 0.5);
    expect(box('rightLowerArm').max.z).toBeGreaterThan(rest.fore.max.z + 0.2);
    at('shrug', 0.5);
    expect(arm('rightUpperArm').position.y).toBeGreaterThan(rest.shoulder + 0.015);
    expect(arm('leftUpperArm').position.y).toBeGreaterThan(rest.shoulder + 0.015);
    at(null, 0);
    expect(box('rightLowerArm').equals(rest.fore)).toBe(true);
  });

  it('a full body rests as a presenter: the hands laid together in front of the waist, joined to the forearms at the wrist', () => {
    const full = buildToonPersona(recipe('full'), { software: true });
    full.apply(faceWith(() => undefined), new Map());
    full.root.updateMatrixWorld(true);
    const box = (name: string) => new Box3().setFromObject(full.root.getObjectByName(name)!);
    const [right, left] = [box('rightHand'), box('leftHand')];
    // Together: the two hands overlap across the middle, in front of the shirt, at the waist.
    expect(right.max.x).toBeGreaterThan(left.min.x);
    for (const h of [right, left]) {
      expect(Math.abs(h.getCenter(new Vector3()).x)).toBeLessThan(0.07);
      expect(h.min.z).toBeGreaterThan(0.08);
      expect(h.getCenter(new Vector3()).y).toBeGreaterThan(0.95);
      expect(h.getCenter(new Vector3()).y).toBeLessThan(1.15);
    }
    // No gap at the wrist: the hand's pivot lies inside the forearm's drawn volume and the hand's.
    for (const side of ['right', 'left']) {
      const wrist = full.root.getObjectByName(`${side}Hand`)!.getWorldPosition(new Vector3());
      const fore = new Box3().setFromObject((full.root.getObjectByName(`${side}LowerArm`)!.children.find((c) => (c as Mesh).isMesh) as Mesh));
      expect(fore.containsPoint(wrist)).toBe(true);
      expect(box(`${side}Hand`).containsPoint(wrist)).toBe(true);
    }
    full.dispose();
  });

  it('the point straightens the right index finger; at rest it is curled again', () => {
    const full = buildToonPersona(recipe('full'), { software: true });
    const shown = () => (full.root.getObjectByName('rightHand')!.children as Mesh[]).map((m) => m.visible);
    full.apply(faceWith(() => undefined), new Map());
    const rest = shown();
    full.apply(faceWith((f) => ((f.gesture = 'point'), (f.gestureProgress = 0.5), (f.gestureIntensity = 1))), new Map());
    const pointing = shown();
    expect(pointing).not.toEqual(rest);
    expect(pointing.filter(Boolean).length).toBe(rest.filter(Boolean).length);
    full.apply(faceWith(() => undefined), new Map());
    expect(shown()).toEqual(rest);
    full.dispose();
  });

  it('a full body stands on the floor with legs, and every hair style builds', () => {
    const full = buildToonPersona(recipe('full', 'bun'), { software: false });
    const box = new Box3().setFromObject(full.root);
    expect(box.min.y).toBeLessThan(0.02);
    expect(box.max.y).toBeGreaterThan(1.7);
    expect(full.stats.triangles).toBeGreaterThan(upper.stats.triangles);
    const short = buildToonPersona(recipe('upper', 'short'), { software: true });
    expect(short.stats.triangles).toBeLessThan(upper.stats.triangles);
    full.dispose();
    short.dispose();
  });
});
