// The 3D stage (loaded only for 3D kinds: a dynamic import from stage.ts). three.js draws the
// avatar (our catalogue personas, Ready-Player-Me-style GLB, VRM) and, for full body, the
// environment; the page's DOM layers behind a transparent canvas draw the background.
import {
  AmbientLight,
  Box3,
  CanvasTexture,
  CircleGeometry,
  Color,
  DirectionalLight,
  Euler,
  HemisphereLight,
  Mesh,
  MeshBasicMaterial,
  PerspectiveCamera,
  Quaternion,
  Scene,
  Vector3,
  WebGLRenderer,
  type Material,
  type Object3D,
  type SkinnedMesh,
} from 'three';
import type { GLTF, GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import type { FaceState } from './face-driver';
import type { AvatarRenderer } from './renderer';
import { createClipPlayer, createMorphOverrides } from './model-clips';
import { relaxArm, rigArm } from './rig-arms';
import { detectProfile, targetWeights, type RigProfile } from './rig-map';
import type { StageConfig } from './stage-config';
import { fetchRecipe, isRecipeUrl } from './toon-recipe';
import { frameFullBody } from './framing';

type VRMLike = {
  scene: Object3D;
  meta?: { metaVersion?: string } | null;
  expressionManager?: { setValue(name: string, value: number): void; expressions: { expressionName: string }[] };
  humanoid?: { getNormalizedBoneNode(name: string): Object3D | null };
  lookAt?: { yaw: number; pitch: number; target?: unknown; autoUpdate?: boolean } | null;
  update(delta: number): void;
};

const LIGHTS: Record<string, { sky: number; ground: number; hemi: number; key: number; keyColour: number; fill: number; dir: [number, number, number] }> = {
  studio: { sky: 0xffffff, ground: 0x8a94a6, hemi: 1.3, key: 2.0, keyColour: 0xffffff, fill: 0.8, dir: [-1, 1.4, 2] },
  daylight: { sky: 0xdcecff, ground: 0x857866, hemi: 1.5, key: 2.2, keyColour: 0xfff6e8, fill: 0.5, dir: [1.5, 3, 2.5] },
  warm: { sky: 0xffe2c4, ground: 0x5f4330, hemi: 1.1, key: 1.9, keyColour: 0xffc890, fill: 0.4, dir: [-1.5, 1.2, 1.8] },
  cool: { sky: 0xe2f0ff, ground: 0x4d5b6b, hemi: 1.3, key: 1.8, keyColour: 0xd2e6ff, fill: 0.6, dir: [1, 1.6, 2] },
};

function findNode(root: Object3D, pattern: RegExp, exclude?: RegExp): Object3D | null {
  let found: Object3D | null = null;
  root.traverse((o) => {
    if (!found && pattern.test(o.name) && !(exclude && exclude.test(o.name))) found = o;
  });
  return found;
}

function blobShadow(): Mesh {
  const c = document.createElement('canvas');
  c.width = c.height = 64;
  const g = c.getContext('2d')!;
  const grad = g.createRadialGradient(32, 32, 2, 32, 32, 32);
  grad.addColorStop(0, 'rgba(0,0,0,0.45)');
  grad.addColorStop(1, 'rgba(0,0,0,0)');
  g.fillStyle = grad;
  g.fillRect(0, 0, 64, 64);
  const mesh = new Mesh(new CircleGeometry(0.45, 24), new MeshBasicMaterial({ map: new CanvasTexture(c), transparent: true, depthWrite: false }));
  mesh.rotation.x = -Math.PI / 2;
  mesh.position.y = 0.005;
  return mesh;
}

/** The WebGL implementation's name, from a throwaway context (released at once). */
function webglRendererName(): string {
  const gl = document.createElement('canvas').getContext('webgl2') ?? document.createElement('canvas').getContext('webgl');
  if (!gl) return '';
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return name;
}

export async function createThreeRenderer(config: StageConfig, opts: { onContextLost?: () => void } = {}): Promise<AvatarRenderer> {
  if (!config.model) throw new Error('no 3D model in the avatar config');
  const canvas = document.createElement('canvas');
  canvas.className = 'ps-canvas';
  // A software rasteriser (SwiftShader, llvmpipe: a machine without a usable GPU) pays per pixel:
  // draw at CSS resolution and without multisampling (4× MSAA costs it a third of its frames).
  const software = /swiftshader|llvmpipe|software/i.test(webglRendererName());
  const renderer = new WebGLRenderer({ canvas, antialias: !software, alpha: true, powerPreference: 'high-performance' });
  renderer.setClearColor(0x000000, 0);
  canvas.addEventListener('webglcontextlost', (e) => {
    e.preventDefault();
    opts.onContextLost?.();
  });

  const scene = new Scene();
  const camera = new PerspectiveCamera(config.kind === 'full' ? 32 : 30, 1, 0.05, 100);
  const preset = LIGHTS[config.lights.preset] ?? LIGHTS.studio!;
  const k = config.lights.intensity;
  scene.add(new HemisphereLight(preset.sky, preset.ground, preset.hemi * k));
  const key = new DirectionalLight(preset.keyColour, preset.key * k);
  key.position.set(...preset.dir);
  scene.add(key);
  const fill = new DirectionalLight(0xffffff, preset.fill * k);
  fill.position.set(-preset.dir[0], 0.6, 1.5);
  scene.add(fill);
  scene.add(new AmbientLight(0xffffff, 0.15 * k));

  // A catalogue person comes as a recipe the page builds (toon-persona.ts), anything else as a GLB/VRM.
  const recipe = isRecipeUrl(config.model.url);
  const isVrm = !recipe && config.model.format === 'vrm';
  // glTF (a GLB/VRM model, a full body's environment) and VRM are chunks of their own, fetched
  // together and only when used: a catalogue upper body needs neither (≈ 11 KB of gzipped JS
  // for the loader, ≈ 29 KB for three-vrm).
  const [loader, vrmPlugin] = await Promise.all([
    !recipe || config.environment ? import('three/addons/loaders/GLTFLoader.js').then((m): GLTFLoader => new m.GLTFLoader()) : null,
    isVrm ? import('@pixiv/three-vrm').then((m) => m.VRMLoaderPlugin) : null,
  ]);
  if (loader && vrmPlugin) loader.register((parser) => new vrmPlugin(parser));
  const [gltf, env, toon] = await Promise.all([
    recipe || !loader ? Promise.resolve(null) : (loader.loadAsync(config.model.url) as Promise<GLTF>),
    config.environment && loader ? (loader.loadAsync(config.environment.url) as Promise<GLTF>).catch(() => null) : Promise.resolve(null),
    recipe
      ? Promise.all([fetchRecipe(config.model.url), import('./toon-persona')]).then(([r, m]) => {
          const c = new Color(preset.keyColour).lerp(new Color(0xffffff), 0.6).multiplyScalar(Math.min(1.25, Math.max(0.6, 0.5 + 0.5 * k)));
          return m.buildToonPersona(r, { software, tint: c });
        })
      : Promise.resolve(null),
  ]);
  const vrm = (gltf?.userData as { vrm?: VRMLike } | undefined)?.vrm ?? null;
  // A VRM 0.x model faces −Z: turned to face the camera (what three-vrm's VRMUtils.rotateVRM0
  // does; importing VRMUtils keeps all its mesh utilities in the chunk, ≈ 2 KB gzipped).
  if (vrm?.meta?.metaVersion === '0') vrm.scene.rotation.y = Math.PI;
  const avatar = toon?.root ?? vrm?.scene ?? gltf!.scene;
  scene.add(avatar);
  avatar.updateWorldMatrix(true, true);

  // Skinned models are often in a T pose: arms down first.
  const bone = (vrmName: string, pattern: RegExp, exclude?: RegExp) => vrm?.humanoid?.getNormalizedBoneNode(vrmName) ?? findNode(avatar, pattern, exclude);
  const armBones = ([1, -1] as const).map((side) => {
    const [l, L] = side === 1 ? ['left', 'Left'] : ['right', 'Right'];
    const c = l[0]!;
    return {
      side,
      upper: bone(`${l}UpperArm`, new RegExp(`^(mixamorig:?)?${L}Arm$|upper_?arm_?${c}|${c}_?upperarm`, 'i')),
      lower: bone(`${l}LowerArm`, new RegExp(`^(mixamorig:?)?${L}ForeArm$|lower_?arm_?${c}|forearm_?${c}`, 'i')),
      shoulder: bone(`${l}Shoulder`, new RegExp(`^(mixamorig:?)?${L}Shoulder$|shoulder_?${c}$|clavicle_?${c}$`, 'i')),
    };
  });
  for (const a of armBones) relaxArm(a.upper, a.lower, a.side);
  avatar.updateWorldMatrix(true, true);
  const rigArms = toon ? [] : armBones.flatMap((a) => (a.upper?.parent && a.lower ? [{ bones: a, arm: rigArm(a.upper, a.lower, a.shoulder, a.side) }] : []));

  // Morph targets (or VRM expressions) and what the model can do.
  const meshes: Mesh[] = [];
  const names = new Set<string>();
  avatar.traverse((o) => {
    const m = o as Mesh;
    if ((m.isMesh || (o as SkinnedMesh).isSkinnedMesh) && m.morphTargetDictionary) {
      meshes.push(m);
      for (const name of Object.keys(m.morphTargetDictionary)) names.add(name);
    }
    if (m.isMesh) {
      m.frustumCulled = false;
      const mats = (Array.isArray(m.material) ? m.material : [m.material]) as Material[];
      for (const mat of mats) mat.needsUpdate = true;
    }
  });
  if (vrm?.expressionManager) for (const e of vrm.expressionManager.expressions) names.add(e.expressionName);
  if (toon) {
    // The toon person moves its own parts (apply): nothing for the generic loop below.
    meshes.length = 0;
    for (const n of toon.names) names.add(n);
  }
  const profile: RigProfile = detectProfile(names, Boolean(vrm?.expressionManager));

  const head: Object3D | null = toon ? toon.head : bone('head', /^(mixamorig:?)?head$/i, /end|top/i);
  const neck = bone('neck', /^(mixamorig:?)?neck$/i);
  const chest = bone('chest', /^(mixamorig:?)?spine2$|^chest$|^upperchest$/i) ?? bone('spine', /^(mixamorig:?)?spine1?$/i);
  const torso = findNode(avatar, /^torso$/i);
  const jawBone = findNode(avatar, /jaw/i);
  const eyes = [bone('leftEye', /^(EyeLeft|LeftEye|eye_?l)$/i), bone('rightEye', /^(EyeRight|RightEye|eye_?r)$/i)].filter((e): e is Object3D => e !== null);
  const rest = new Map<Object3D, Quaternion>();
  for (const o of [head, neck, chest, jawBone, ...eyes]) if (o) rest.set(o, o.quaternion.clone());
  const torsoScale = torso?.scale.clone();
  const headPos = head?.position.clone();
  if (vrm?.lookAt) vrm.lookAt.autoUpdate = false;

  // Framing, from the model's size and head: the same numbers our catalogue thumbnails use.
  const box = new Box3().setFromObject(avatar);
  const top = box.max.y;
  const headWorld = head ? head.getWorldPosition(new Vector3()) : new Vector3(0, top - 0.25, 0);
  /** Full body: a medium shot (hair to mid-thigh) unless the whole figure is asked for (framing.ts). */
  const floor = Math.min(box.min.y, 0);
  const frameFull = (aspect: number) => {
    const f = frameFullBody({ top, floor, head: [headWorld.x, headWorld.y, headWorld.z], fovDeg: camera.fov, aspect, shot: config.framing });
    camera.position.set(...f.position);
    camera.lookAt(...f.target);
  };
  if (config.kind === 'full') frameFull(4 / 3);

  // Where the head (skin: crown to chin, without hair) is drawn, in CSS px, published as
  // `window.__personaThreeLayout` for tests (as public as `__personaAvatar`).
  const skull = toon?.head.children.find((c) => (c as Mesh).isMesh) ?? null;
  const headBox = skull
    ? new Box3().setFromObject(skull)
    : new Box3(new Vector3(headWorld.x - 0.08, headWorld.y - 0.1, headWorld.z), new Vector3(headWorld.x + 0.08, Math.max(headWorld.y + 0.05, top - 0.03), headWorld.z));
  const publishLayout = (w: number, h: number) => {
    camera.updateMatrixWorld();
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    const v = new Vector3();
    for (let c = 0; c < 8; c++) {
      v.set(c & 1 ? headBox.max.x : headBox.min.x, c & 2 ? headBox.max.y : headBox.min.y, c & 4 ? headBox.max.z : headBox.min.z).project(camera);
      x0 = Math.min(x0, ((v.x + 1) / 2) * w);
      x1 = Math.max(x1, ((v.x + 1) / 2) * w);
      y0 = Math.min(y0, ((1 - v.y) / 2) * h);
      y1 = Math.max(y1, ((1 - v.y) / 2) * h);
    }
    (window as unknown as { __personaThreeLayout?: unknown }).__personaThreeLayout = {
      stage: { width: w, height: h },
      shot: config.kind === 'full' ? config.framing : 'upper',
      head: { x: Math.round(x0), y: Math.round(y0), width: Math.round(x1 - x0), height: Math.round(y1 - y0) },
    };
  };
  /**
   * Upper body: head and shoulders, the hair's top about 14 % below the frame's top. A frame
   * narrower than about 2 : 3 (a phone held upright) would show only the face from ear to ear:
   * the camera steps back until 0.38 m (the shoulders) fit across, the hair’s top kept where it
   * was, so more of the body shows below instead.
   */
  const frameUpper = (aspect: number) => {
    const halfTan = Math.tan((camera.fov * Math.PI) / 360);
    const d = Math.max(1.05, 0.38 / (2 * halfTan * aspect));
    const centre = top - 0.2 - (d - 1.05) * halfTan * 0.71;
    camera.position.set(headWorld.x, centre + 0.04, headWorld.z + d);
    camera.lookAt(headWorld.x, centre, headWorld.z);
  };
  if (config.kind !== 'full') frameUpper(1);

  if (env) {
    const e = config.environment!;
    env.scene.position.set(...e.position);
    env.scene.rotation.set(...(e.rotation.map((d) => (d * Math.PI) / 180) as [number, number, number]));
    env.scene.scale.set(...e.scale);
    scene.add(env.scene);
  }
  if (config.kind === 'full' && config.environment?.shadow !== false) scene.add(blobShadow());

  // The model's own clips and targets, for `<trl-anim>` and `<trl-morph>` (model-clips.ts).
  const clips = toon ? null : createClipPlayer(avatar, gltf?.animations ?? []);
  const morphs = createMorphOverrides();
  const hasTarget = (name: string) => names.has(name);
  const armMoving = (a: (typeof armBones)[number]) => Boolean(clips && ((a.upper && clips.moving.has(a.upper)) || (a.lower && clips.moving.has(a.lower))));

  const targets = new Map<string, number>();
  const written = new Set<string>();
  const euler = new Euler();
  const q = new Quaternion();
  let last = performance.now();
  /** The stage's CSS size, and the fraction of the pixel ratio drawn at (the stage's adaptive resolution, render-scale.ts). */
  let size: [number, number] = [1, 1];
  let renderScale = 1;
  const applySize = () => {
    renderer.setPixelRatio((software ? 1 : Math.min(2, window.devicePixelRatio || 1)) * renderScale);
    renderer.setSize(size[0], size[1], true);
  };
  /** Turns a bone from its rest pose — or, while one of the model's clips moves it, from the clip's pose. */
  const turn = (o: Object3D | null, pitch: number, yaw: number, roll: number) => {
    const r = o && rest.get(o);
    if (!o || !r) return;
    euler.set(pitch, yaw, roll);
    if (!clips?.moving.has(o)) o.quaternion.copy(r);
    o.quaternion.multiply(q.setFromEuler(euler));
  };

  return {
    name: 'three',
    canvas,
    targets,
    resize(w, h) {
      size = [w, h];
      applySize();
      camera.aspect = w / Math.max(1, h);
      if (config.kind !== 'full') frameUpper(camera.aspect);
      else frameFull(camera.aspect);
      camera.updateProjectionMatrix();
      publishLayout(w, h);
    },
    setRenderScale(scale) {
      if (scale === renderScale) return;
      renderScale = scale;
      applySize();
    },
    act(action, nowMs) {
      if (action.kind === 'anim') return clips?.play(action.id, action.type ?? 'core', action.immediate ?? false) ?? false;
      if (!names.has(action.name)) return false;
      morphs.set(action.name, action.value ?? 1, action.durationMs, nowMs);
      return true;
    },
    playing: () => clips?.playing() ?? [],
    render(face: FaceState, nowMs: number) {
      const elapsed = Math.max(0, (nowMs - last) / 1000);
      const dt = Math.min(0.1, elapsed);
      last = nowMs;
      // A clip keeps its own time even when frames are far apart (reduced motion draws a few a second).
      clips?.update(Math.min(0.5, elapsed));
      targetWeights(face, profile, names, targets);
      if (morphs.size) morphs.apply(targets, hasTarget, nowMs);
      if (vrm?.expressionManager) {
        for (const name of written) if (!targets.has(name)) vrm.expressionManager.setValue(name, 0);
        for (const [name, w] of targets) vrm.expressionManager.setValue(name, w);
      } else {
        for (const mesh of meshes) {
          const dict = mesh.morphTargetDictionary!;
          const inf = mesh.morphTargetInfluences!;
          for (const name of written) {
            const i = dict[name];
            if (i !== undefined && !targets.has(name)) inf[i] = 0;
          }
          for (const [name, w] of targets) {
            const i = dict[name];
            if (i !== undefined) inf[i] = w;
          }
        }
      }
      written.clear();
      for (const name of targets.keys()) written.add(name);
      if (toon) {
        toon.apply(face, targets);
        renderer.render(scene, camera);
        return;
      }
      // Head (and a share on the neck), eyes, breathing, the jaw bone for rigs without targets.
      turn(neck, face.headPitch * 0.4, face.headYaw * 0.4, face.headRoll * 0.4);
      turn(head, face.headPitch * (neck ? 0.6 : 1), face.headYaw * (neck ? 0.6 : 1), face.headRoll * (neck ? 0.6 : 1));
      if (vrm?.lookAt) {
        vrm.lookAt.yaw = (face.eyeYaw * 180) / Math.PI;
        vrm.lookAt.pitch = (face.eyePitch * 180) / Math.PI;
      } else for (const eye of eyes) turn(eye, -face.eyePitch, face.eyeYaw, 0);
      turn(chest, face.breath * 0.012, 0, face.lean * 0.5);
      if (torso && torsoScale) torso.scale.set(torsoScale.x * (1 + face.breath * 0.006), torsoScale.y, torsoScale.z * (1 + face.breath * 0.01));
      if (torso && head && headPos) head.position.y = headPos.y + face.breath * 0.0015;
      if (profile === 'jaw' && !names.has('jawOpen') && !names.has('mouthOpen')) turn(jawBone, face.jaw * 0.3, 0, 0);
      // The arms' gestures, except on an arm one of the model's clips is moving.
      for (const { bones, arm } of rigArms) if (!armMoving(bones)) arm.pose(face);
      vrm?.update(dt);
      renderer.render(scene, camera);
    },
    dispose() {
      clips?.dispose();
      toon?.dispose();
      renderer.dispose();
      scene.traverse((o) => {
        const m = o as Mesh;
        m.geometry?.dispose();
      });
      canvas.remove();
    },
  };
}
