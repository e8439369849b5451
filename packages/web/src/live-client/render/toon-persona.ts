// A catalogue person built in the page from its recipe (toon-recipe.ts), in the toon look of
// ADR 089 (ported from bench/look/toon.js): anime proportions, smooth analytic normals (no
// facets), face parts as decals painted on canvases (eyes with iris, pupil and highlights, brows,
// a mouth with teeth, interior and tongue, cheeks), strand-card hair, painted clothing, and a
// light toon shader (one stepped light term, a rim; N·V ink lines on a software rasteriser, an
// inverted-hull outline with a GPU). It exposes what the face driver moves: 15 viseme shapes of
// the mouth and a jaw, blinks with a half-closed frame, brows and cheeks, gaze, head and neck.
import {
  BackSide,
  BufferAttribute,
  BufferGeometry,
  CanvasTexture,
  Color,
  Group,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  Quaternion,
  Raycaster,
  RepeatWrapping,
  SRGBColorSpace,
  ShaderMaterial,
  Vector2,
  Vector3,
  type Material,
  type Object3D,
  type Texture,
} from 'three';
import type { FaceState } from './face-driver';
import { armAway, armPoseOf, idleArm, presenterArm } from './gesture-pose';
import type { ToonRecipe } from './toon-recipe';
import { VISEMES, type Viseme } from './visemes';

export interface ToonOptions {
  /** A software rasteriser: N·V ink instead of the outline pass, fewer vertices, smaller textures. */
  software: boolean;
  /** The light's colour and strength (the stage's preset), multiplied into every lit surface. */
  tint?: Color;
}

export interface ToonCharacter {
  root: Group;
  head: Object3D;
  /** Target names this character answers to (for the rig map and the test hook). */
  names: Set<string>;
  /** Sets the face for one frame (visemes come from `targets`, as the rig map wrote them). */
  apply(face: FaceState, targets: ReadonlyMap<string, number>): void;
  /** What the current frame shows (tests): blink frame per eye, gaze offset. */
  readonly debug: { blinkFrame: [number, number]; gaze: [number, number] };
  stats: { vertices: number; triangles: number; meshes: number; buildMs: number };
  /** The mouth decal (tests read its morph weights). */
  mouth: Mesh;
  dispose(): void;
}

const smooth = (x: number) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));
const lin = (hex: string) => new Color(hex);
const mixC = (a: Color, b: Color, t: number) => a.clone().lerp(b, t);
type V3 = [number, number, number];

/** Geometry under construction: positions, normals, colours, uvs, triangles. */
class Geo {
  pos: number[] = [];
  nrm: number[] = [];
  col: number[] = [];
  uv: number[] = [];
  idx: number[] = [];
  get count() {
    return this.pos.length / 3;
  }
  vertex(p: readonly number[], n: readonly number[], c: Color, uv: [number, number] = [0, 0]) {
    this.pos.push(p[0]!, p[1]!, p[2]!);
    const l = Math.hypot(n[0]!, n[1]!, n[2]!) || 1;
    this.nrm.push(n[0]! / l, n[1]! / l, n[2]! / l);
    this.col.push(c.r, c.g, c.b);
    this.uv.push(...uv);
    return this.count - 1;
  }
  /** rows×cols quads from f(u, v); triangles are turned to face along the normals. */
  grid(rows: number, cols: number, f: (u: number, v: number) => { p: V3; n: V3; c: Color }) {
    const base = this.count;
    for (let r = 0; r <= rows; r++)
      for (let c = 0; c <= cols; c++) {
        const { p, n, c: col } = f(c / cols, r / rows);
        this.vertex(p, n, col, [c / cols, r / rows]);
      }
    const w = cols + 1;
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const a = base + r * w + c;
        this.face(a, a + w, a + 1);
        this.face(a + 1, a + w, a + w + 1);
      }
  }
  face(a: number, b: number, c: number) {
    const P = this.pos;
    const ux = P[b * 3]! - P[a * 3]!;
    const uy = P[b * 3 + 1]! - P[a * 3 + 1]!;
    const uz = P[b * 3 + 2]! - P[a * 3 + 2]!;
    const vx = P[c * 3]! - P[a * 3]!;
    const vy = P[c * 3 + 1]! - P[a * 3 + 1]!;
    const vz = P[c * 3 + 2]! - P[a * 3 + 2]!;
    const x = [uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx];
    let d = 0;
    for (const i of [a, b, c]) for (let k = 0; k < 3; k++) d += x[k]! * this.nrm[i * 3 + k]!;
    if (d >= 0) this.idx.push(a, b, c);
    else this.idx.push(a, c, b);
  }
  geometry(offset: V3 = [0, 0, 0]) {
    const g = new BufferGeometry();
    const pos = new Float32Array(this.pos);
    for (let i = 0; i < pos.length; i++) pos[i] = pos[i]! - offset[i % 3]!;
    g.setAttribute('position', new BufferAttribute(pos, 3));
    g.setAttribute('normal', new BufferAttribute(new Float32Array(this.nrm), 3));
    g.setAttribute('color', new BufferAttribute(new Float32Array(this.col), 3));
    g.setAttribute('uv', new BufferAttribute(new Float32Array(this.uv), 2));
    g.setIndex(this.idx);
    return g;
  }
}

interface StrandOpts {
  width: number;
  thick?: number;
  colour: (t: number) => Color;
  out: (p: V3, t: number) => Vector3;
  rows?: number;
  cols?: number;
  taper?: number;
  /** Width along the strand (overrides the taper). */
  profile?: (t: number) => number;
}

// ── Materials ──────────────────────────────────────────────────────────────────────────────
/**
 * The light toon shader: MeshBasicMaterial plus one lambert term stepped into lit/shade, with the
 * light fixed in view space (the stage's camera does not move), a thin rim, and optionally ink
 * lines without a second pass (where the surface turns from the eye, N·V small, it darkens).
 */
function liteToon(shade: readonly number[], rim: number, tint: Color, map: Texture | null, ink: string | null): MeshBasicMaterial {
  const m = new MeshBasicMaterial({ vertexColors: true, map });
  const f = (x: number) => x.toFixed(3);
  const shadeV = shade.map((x) => f(0.25 + 0.75 * x)).join(', ');
  const tintV = [tint.r, tint.g, tint.b].map(f).join(', ');
  const inkV = ink ? new Color(ink).toArray().map(f).join(', ') : null;
  m.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader
      .replace('void main() {', 'varying vec3 vToonN;\nvarying vec3 vToonV;\nvoid main() {')
      .replace('#include <project_vertex>', '#include <project_vertex>\nvToonN = normalize( normalMatrix * normal );\nvToonV = - mvPosition.xyz;');
    shader.fragmentShader = shader.fragmentShader.replace('void main() {', 'varying vec3 vToonN;\nvarying vec3 vToonV;\nvoid main() {').replace(
      '#include <color_fragment>',
      `#include <color_fragment>
        vec3 toonN = normalize( vToonN );
        float toonNV = dot( toonN, normalize( vToonV ) );
        float toonLit = smoothstep( -0.12, 0.0, dot( toonN, normalize( vec3( -0.42, 0.52, 0.74 ) ) ) );
        diffuseColor.rgb *= mix( vec3( ${shadeV} ), vec3( 1.0 ), toonLit ) * vec3( ${tintV} );
        diffuseColor.rgb += ${f(rim)} * pow( 1.0 - abs( toonNV ), 4.0 );
        ${inkV ? `diffuseColor.rgb = mix( diffuseColor.rgb, vec3( ${inkV} ), 0.9 * ( 1.0 - smoothstep( 0.12, 0.3, toonNV ) ) );` : ''}`,
    );
  };
  return m;
}

/** A cheap inverted hull: back faces pushed out along the normal, one flat colour. */
function hull(width: number, colour: string): MeshBasicMaterial {
  const m = new MeshBasicMaterial({ color: new Color(colour), side: BackSide });
  m.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader.replace('#include <morphtarget_vertex>', `#include <morphtarget_vertex>\ntransformed += normalize( normal ) * ${width.toFixed(5)};`);
  };
  return m;
}

// ── Textures painted in code ───────────────────────────────────────────────────────────────
type Paint = (g: CanvasRenderingContext2D, w: number, h: number) => void;
function canvasTexture(w: number, h: number, draw: Paint, aniso = 1): CanvasTexture {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  // No 2D context (a test DOM): the texture stays blank, the geometry is still built.
  let g: CanvasRenderingContext2D | null = null;
  try {
    g = c.getContext('2d');
  } catch {
    g = null;
  }
  if (g) draw(g, w, h);
  const t = new CanvasTexture(c);
  t.colorSpace = SRGBColorSpace;
  t.anisotropy = aniso;
  return t;
}
const shadeHex = (hex: string, k: number) => `#${new Color(hex).multiplyScalar(k).getHexString()}`;
const tintHex = (hex: string, to: string, k: number) => `#${new Color(hex).lerp(new Color(to), k).getHexString()}`;

// The eye is painted for the eye whose outer corner is on the right of the picture; the other
// eye's shader mirrors it. Its upper lid runs along a curve that a blink lowers onto the lower lid.
type Pt = [number, number];
const LID_OPEN: Pt[] = [[0.12, 0.56], [0.22, 0.16], [0.7, 0.08], [0.9, 0.44]];
const LID_SHUT: Pt[] = [[0.12, 0.54], [0.373, 0.74], [0.633, 0.74], [0.9, 0.52]];
const lidAt = (t: number): Pt[] => LID_OPEN.map((p, i) => [p[0] + (LID_SHUT[i]![0] - p[0]) * t, p[1] + (LID_SHUT[i]![1] - p[1]) * t]);
/** Iris centre and half-size in the eye texture's uv (v up), for the right-hand eye. */
const IRIS_C: Pt = [0.52, 0.44];
const IRIS_H: Pt = [0.21, 0.42];

/**
 * The lower lid's two control points (canvas y down): at rest a shallow cup; smiling (0…1) it
 * pushes up into the eye — the crescent of an anime character's happy eyes.
 */
const lowerLid = (smile: number): [Pt, Pt] => [
  [0.78, 0.8 - 0.75 * smile],
  [0.3, 0.95 - 0.85 * smile],
];

function scleraTexture(t: number, smile = 0): CanvasTexture {
  return canvasTexture(128, 100, (g, W, H) => {
    const [a, b, c, d] = lidAt(t).map(([x, y]) => [x * W, y * H] as Pt) as [Pt, Pt, Pt, Pt];
    const [l1, l2] = lowerLid(smile);
    const shape = new Path2D();
    shape.moveTo(...a);
    shape.bezierCurveTo(...b, ...c, ...d);
    shape.bezierCurveTo(l1[0] * W, l1[1] * H, l2[0] * W, l2[1] * H, ...a);
    const grad = g.createLinearGradient(0, Math.min(b[1], c[1]), 0, 0.8 * H);
    grad.addColorStop(0, '#aaa4c0');
    grad.addColorStop(0.5, '#f4f2fa');
    grad.addColorStop(1, '#fdfcff');
    g.fillStyle = grad;
    g.fill(shape);
  });
}

function linesTexture(t: number, lashes: number, smile = 0): CanvasTexture {
  return canvasTexture(256, 200, (g, W, H) => {
    const [a, b, c, d] = lidAt(t).map(([x, y]) => [x * W, y * H] as Pt) as [Pt, Pt, Pt, Pt];
    g.strokeStyle = '#21120f';
    g.fillStyle = '#21120f';
    g.lineCap = 'round';
    g.lineJoin = 'round';
    g.lineWidth = 7 + 4 * lashes;
    g.beginPath();
    g.moveTo(...a);
    g.bezierCurveTo(...b, ...c, ...d);
    g.stroke();
    if (t < 0.9) {
      // The flick at the outer corner, and the lower lash line.
      g.globalAlpha = lashes;
      g.beginPath();
      g.moveTo(d[0] - 0.14 * W, d[1] - 0.24 * H * (1 - t));
      g.quadraticCurveTo(d[0] + 0.04 * W, d[1] - 0.22 * H * (1 - t), d[0] + 0.09 * W, d[1] - 0.14 * H * (1 - t));
      g.quadraticCurveTo(d[0] + 0.03 * W, d[1] - 0.02 * H, d[0] - 0.04 * W, d[1] + 0.03 * H);
      g.fill();
      g.globalAlpha = 1;
      g.lineWidth = 3.5 + 2.5 * smile;
      g.strokeStyle = `rgba(70,35,35,${0.75 + 0.2 * smile})`;
      g.beginPath();
      if (smile > 0) {
        // The raised lower lid, drawn along the sclera's lower edge.
        const [l1, l2] = lowerLid(smile);
        g.moveTo(a[0] + 0.1 * W, a[1] - 0.04 * H);
        g.bezierCurveTo(l2[0] * W, l2[1] * H, l1[0] * W, l1[1] * H, d[0] - 0.03 * W, d[1] + 0.01 * H);
      } else {
        g.moveTo(0.5 * W, 0.92 * H);
        g.quadraticCurveTo(0.78 * W, 0.84 * H, 0.88 * W, 0.5 * H);
      }
      g.stroke();
    } else {
      g.globalAlpha = lashes;
      g.lineWidth = 4;
      for (const [x, y, dx, dy] of [[0.78, 0.64, 0.06, 0.08], [0.66, 0.7, 0.03, 0.1]] as const) {
        g.beginPath();
        g.moveTo(x * W, y * H);
        g.lineTo((x + dx) * W, (y + dy) * H);
        g.stroke();
      }
    }
    g.globalAlpha = 1;
    // The crease above the eye.
    g.lineWidth = 3;
    g.strokeStyle = 'rgba(80,40,40,0.45)';
    g.beginPath();
    g.moveTo(0.24 * W, 0.12 * H + 0.1 * H * t);
    g.quadraticCurveTo(0.55 * W, -0.02 * H + 0.1 * H * t, 0.82 * W, 0.1 * H + 0.1 * H * t);
    g.stroke();
  });
}

/** The iris (its own texture, so gaze moves it under the lids): gradient, pupil, highlights. */
function irisTexture(iris: string): CanvasTexture {
  return canvasTexture(128, 160, (g, W, H) => {
    const cx = W / 2;
    const cy = H / 2;
    const rx = 0.46 * W;
    const ry = 0.46 * H;
    const ig = g.createLinearGradient(0, cy - ry, 0, cy + ry);
    ig.addColorStop(0, shadeHex(iris, 0.3));
    ig.addColorStop(0.45, iris);
    ig.addColorStop(1, tintHex(iris, '#fff8e0', 0.55));
    g.fillStyle = ig;
    g.beginPath();
    g.ellipse(cx, cy, rx, ry, 0, 0, Math.PI * 2);
    g.fill();
    g.lineWidth = 4;
    g.strokeStyle = shadeHex(iris, 0.25);
    g.stroke();
    g.fillStyle = '#160c10';
    g.beginPath();
    g.ellipse(cx, cy + 0.024 * H, 0.2 * W, 0.2 * H, 0, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = tintHex(iris, '#ffffff', 0.45);
    g.globalAlpha = 0.6;
    g.beginPath();
    g.ellipse(cx, cy + 0.26 * H, 0.28 * W, 0.095 * H, 0, 0, Math.PI * 2);
    g.fill();
    g.globalAlpha = 1;
    g.fillStyle = '#ffffff';
    g.beginPath();
    g.ellipse(cx - 0.214 * W, cy - 0.19 * H, 0.155 * W, 0.095 * H, -0.4, 0, Math.PI * 2);
    g.fill();
    g.beginPath();
    g.ellipse(cx + 0.167 * W, cy + 0.19 * H, 0.067 * W, 0.042 * H, 0, 0, Math.PI * 2);
    g.fill();
  });
}

/** Eye shader: sclera (alpha: inside the lids), the iris shifted by gaze and masked by it, lines. */
function eyeMaterial(iris: Texture, flip: boolean): ShaderMaterial {
  return new ShaderMaterial({
    uniforms: {
      sclera: { value: null },
      lines: { value: null },
      iris: { value: iris },
      flip: { value: flip ? 1 : 0 },
      gaze: { value: new Vector2() },
      irisC: { value: new Vector2(flip ? 1 - IRIS_C[0] : IRIS_C[0], IRIS_C[1]) },
      irisH: { value: new Vector2(...IRIS_H) },
    },
    vertexShader: `varying vec2 vUv;
      #include <common>
      #include <morphtarget_pars_vertex>
      void main() {
        vUv = uv;
        #include <begin_vertex>
        #include <morphtarget_vertex>
        #include <project_vertex>
      }`,
    fragmentShader: `uniform sampler2D sclera; uniform sampler2D lines; uniform sampler2D iris;
      uniform float flip; uniform vec2 gaze; uniform vec2 irisC; uniform vec2 irisH;
      varying vec2 vUv;
      void main() {
        vec2 uv = vec2( flip > 0.5 ? 1.0 - vUv.x : vUv.x, vUv.y );
        vec4 s = texture2D( sclera, uv );
        vec2 iu = ( vUv - irisC - gaze ) / ( 2.0 * irisH ) + 0.5;
        vec4 ir = texture2D( iris, clamp( iu, 0.0, 1.0 ) );
        vec3 c = mix( s.rgb, ir.rgb, ir.a * s.a );
        vec4 l = texture2D( lines, uv );
        c = mix( c, l.rgb, l.a );
        gl_FragColor = vec4( c, max( s.a, l.a ) );
        #include <colorspace_fragment>
      }`,
    transparent: true,
    depthWrite: false,
    polygonOffset: true,
    polygonOffsetFactor: -2,
    polygonOffsetUnits: -4,
  });
}

function browTexture(colour: string): CanvasTexture {
  return canvasTexture(128, 32, (g, W, H) => {
    g.fillStyle = colour;
    g.beginPath();
    g.moveTo(0.04 * W, 0.75 * H);
    g.quadraticCurveTo(0.45 * W, 0.05 * H, 0.97 * W, 0.5 * H);
    g.quadraticCurveTo(0.5 * W, 0.3 * H, 0.06 * W, 0.98 * H);
    g.fill();
  });
}

function mouthTexture(): CanvasTexture {
  return canvasTexture(128, 96, (g, W, H) => {
    g.fillStyle = '#5c1b26';
    g.fillRect(0, 0, W, H);
    const sh = g.createLinearGradient(0, 0, 0, H);
    sh.addColorStop(0, 'rgba(20,0,5,0.6)');
    sh.addColorStop(0.5, 'rgba(20,0,5,0)');
    g.fillStyle = sh;
    g.fillRect(0, 0, W, H);
    g.fillStyle = '#fbf8f4';
    g.beginPath();
    g.moveTo(0.08 * W, 0);
    g.lineTo(0.92 * W, 0);
    g.quadraticCurveTo(0.88 * W, 0.22 * H, 0.7 * W, 0.22 * H);
    g.lineTo(0.3 * W, 0.22 * H);
    g.quadraticCurveTo(0.12 * W, 0.22 * H, 0.08 * W, 0);
    g.fill();
    g.fillStyle = '#d3707c';
    g.beginPath();
    g.ellipse(0.5 * W, 1.04 * H, 0.3 * W, 0.3 * H, 0, 0, Math.PI * 2);
    g.fill();
    g.strokeStyle = '#3b1016';
    g.lineWidth = 7;
    g.strokeRect(0, 0, W, H);
  });
}

function strokeTexture(colour: string, w = 128, h = 16, width = 0.55): CanvasTexture {
  return canvasTexture(w, h, (g, W, H) => {
    g.fillStyle = colour;
    g.beginPath();
    g.moveTo(0, H / 2);
    g.quadraticCurveTo(W / 2, H / 2 - H * width, W, H / 2);
    g.quadraticCurveTo(W / 2, H / 2 + H * width, 0, H / 2);
    g.fill();
  });
}

function blushTexture(): CanvasTexture {
  return canvasTexture(64, 48, (g, W, H) => {
    const grad = g.createRadialGradient(W / 2, H / 2, 0, W / 2, H / 2, W / 2);
    grad.addColorStop(0, 'rgba(240,110,120,0.8)');
    grad.addColorStop(1, 'rgba(240,110,120,0)');
    g.fillStyle = grad;
    g.save();
    g.scale(1, H / W);
    g.fillRect(0, 0, W, W);
    g.restore();
    g.strokeStyle = 'rgba(200,80,90,0.5)';
    g.lineWidth = 1.5;
    for (const x of [0.36, 0.5, 0.64]) {
      g.beginPath();
      g.moveTo(x * W + 3, 0.38 * H);
      g.lineTo(x * W - 1, 0.6 * H);
      g.stroke();
    }
  });
}

// ── The mouth's shapes ─────────────────────────────────────────────────────────────────────
/** Per viseme: how far the mouth opens (m, at its middle), how wide (× rest), how round (0–1), lips pressed. */
export const MOUTH_SHAPES: Record<Viseme, { open: number; wide: number; round: number; press?: number }> = {
  sil: { open: 0, wide: 1, round: 0 },
  PP: { open: 0, wide: 0.9, round: 0, press: 1 },
  FF: { open: 0.0035, wide: 1.0, round: 0 },
  TH: { open: 0.005, wide: 1.0, round: 0 },
  DD: { open: 0.0065, wide: 1.02, round: 0 },
  kk: { open: 0.008, wide: 1.02, round: 0 },
  CH: { open: 0.0065, wide: 0.82, round: 0.4 },
  SS: { open: 0.0035, wide: 1.12, round: 0 },
  nn: { open: 0.0055, wide: 1.0, round: 0 },
  RR: { open: 0.0065, wide: 0.72, round: 0.7 },
  aa: { open: 0.028, wide: 1.16, round: 0 },
  E: { open: 0.012, wide: 1.25, round: 0 },
  I: { open: 0.0065, wide: 1.22, round: 0 },
  O: { open: 0.018, wide: 0.74, round: 1 },
  U: { open: 0.008, wide: 0.56, round: 1 },
};

// ── The character ──────────────────────────────────────────────────────────────────────────
export function buildToonPersona(recipe: ToonRecipe, opts: ToonOptions): ToonCharacter {
  const started = performance.now();
  const low = opts.software;
  // A full body on a software rasteriser: the person is small on screen, fewer vertices do.
  const lowest = low && recipe.body === 'full';
  const tint = opts.tint ?? new Color(1, 1, 1);
  const female = recipe.build === 'f';
  const long = recipe.hairStyle === 'long';
  const bun = recipe.hairStyle === 'bun';
  const full = recipe.body === 'full';
  const col = recipe.colours;
  const skin = lin(col.skin);
  const hair = lin(col.hair);
  const shirt = lin(col.top);
  const white = lin('#f5f5f7');
  const skinShade = skin.clone().multiply(new Color(0.86, 0.66, 0.68));
  const luminance = 0.2126 * skin.r + 0.7152 * skin.g + 0.0722 * skin.b;
  // Blush is lighter on darker skin, where the same pink reads as a red patch.
  const blushAmount = 0.7 * Math.min(1, 0.3 + 1.5 * luminance);
  const aniso = low ? 1 : 4;
  const disposables: { dispose(): void }[] = [];
  const track = <T extends { dispose(): void }>(x: T) => (disposables.push(x), x);

  const strand = (geo: Geo, path: (t: number) => V3, o: StrandOpts) => {
    const rows = low ? Math.ceil((o.rows ?? 14) * (lowest ? 0.5 : 0.7)) : (o.rows ?? 14);
    const cols = low ? Math.max(5, (o.cols ?? 6) - 1) : (o.cols ?? 6);
    const thick = o.thick ?? 0.3;
    const taper = o.taper ?? 0.8;
    const base = geo.count;
    for (let r = 0; r <= rows; r++) {
      const t = r / rows;
      const p = path(t);
      const a = path(Math.max(0, t - 0.01));
      const b = path(Math.min(1, t + 0.01));
      const T = new Vector3(b[0] - a[0], b[1] - a[1], b[2] - a[2]).normalize();
      const O = o.out(p, t).normalize();
      O.sub(T.clone().multiplyScalar(O.dot(T))).normalize();
      const S = new Vector3().crossVectors(T, O).normalize();
      const w = o.profile ? o.width * o.profile(t) : o.width * (t < 0.08 ? 0.75 + 0.25 * (t / 0.08) : 1) * Math.max(0.02, (1 - t) ** taper);
      const th = w * thick + 0.0006;
      const c = o.colour(t);
      for (let k = 0; k <= cols; k++) {
        const ang = (k / cols) * Math.PI * 2;
        const cs = Math.cos(ang);
        const sn = Math.sin(ang);
        const q: V3 = [p[0] + S.x * cs * w + O.x * sn * th, p[1] + S.y * cs * w + O.y * sn * th, p[2] + S.z * cs * w + O.z * sn * th];
        // The normal leans outwards so a flat card shades like the volume it stands for.
        const n = S.clone().multiplyScalar(cs / w).add(O.clone().multiplyScalar(sn / th)).normalize().add(O.clone().multiplyScalar(thick < 0.9 ? 0.9 : 0));
        geo.vertex(q, [n.x, n.y, n.z], c, [k / cols, t]);
      }
    }
    const w = cols + 1;
    for (let r = 0; r < rows; r++)
      for (let k = 0; k < cols; k++) {
        const a = base + r * w + k;
        geo.face(a, a + w, a + 1);
        geo.face(a + 1, a + w, a + w + 1);
      }
  };

  /**
   * A limb (or finger): a tube along `path` whose cross-section is an ellipse of radii
   * `radius(t)` (across, front-to-back), with normals that follow the taper (a swelling forearm
   * shades as one), optionally closed by a rounded cap at either end (no open ring for the eye to
   * find). `cols` is the ring's vertex count; `ref` the direction the second radius points along.
   */
  const limb = (geo: Geo, path: (t: number) => V3, radius: (t: number) => [number, number], o: { rows: number; cols: number; ref: Vector3; colour: (t: number) => Color; capStart?: number; capEnd?: number }) => {
    const rows = Math.max(2, low ? Math.ceil(o.rows * (lowest ? 0.6 : 0.8)) : o.rows);
    const cols = low ? Math.max(6, o.cols - 2) : o.cols;
    const caps = [low ? Math.min(2, o.capStart ?? 0) : (o.capStart ?? 0), low ? Math.min(2, o.capEnd ?? 0) : (o.capEnd ?? 0)];
    const frame = (t: number) => {
      const p = path(t);
      const a = path(Math.max(0, t - 0.01));
      const b = path(Math.min(1, t + 0.01));
      const T = new Vector3(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
      const ds = T.length() / (Math.min(1, t + 0.01) - Math.max(0, t - 0.01));
      T.normalize();
      const O = o.ref.clone().sub(T.clone().multiplyScalar(o.ref.dot(T))).normalize();
      const S = new Vector3().crossVectors(T, O).normalize();
      const r = radius(t);
      const r0 = radius(Math.max(0, t - 0.01));
      const r1 = radius(Math.min(1, t + 0.01));
      const slope = ((r1[0] + r1[1] - r0[0] - r0[1]) / 2 / (Math.min(1, t + 0.01) - Math.max(0, t - 0.01))) / Math.max(1e-5, ds);
      return { p, T, O, S, r, slope };
    };
    // Rings: the start cap (a quarter circle of rings), the body, the end cap.
    const rings: { c: V3; T: Vector3; O: Vector3; S: Vector3; r: [number, number]; along: number; slope: number; t: number }[] = [];
    const f0 = frame(0);
    for (let k = 0; k < caps[0]!; k++) {
      const a = (Math.PI / 2) * (1 - k / caps[0]!);
      const back = f0.T.clone().multiplyScalar(-Math.sin(a) * Math.min(f0.r[0], f0.r[1]));
      rings.push({ c: [f0.p[0] + back.x, f0.p[1] + back.y, f0.p[2] + back.z], T: f0.T, O: f0.O, S: f0.S, r: [Math.max(1e-4, f0.r[0] * Math.cos(a)), Math.max(1e-4, f0.r[1] * Math.cos(a))], along: -Math.sin(a), slope: 0, t: 0 });
    }
    for (let k = 0; k <= rows; k++) {
      const f = frame(k / rows);
      rings.push({ c: f.p, T: f.T, O: f.O, S: f.S, r: f.r, along: 0, slope: f.slope, t: k / rows });
    }
    const f1 = frame(1);
    for (let k = 1; k <= caps[1]!; k++) {
      const a = (Math.PI / 2) * (k / caps[1]!);
      const fwd = f1.T.clone().multiplyScalar(Math.sin(a) * Math.min(f1.r[0], f1.r[1]));
      rings.push({ c: [f1.p[0] + fwd.x, f1.p[1] + fwd.y, f1.p[2] + fwd.z], T: f1.T, O: f1.O, S: f1.S, r: [Math.max(1e-4, f1.r[0] * Math.cos(a)), Math.max(1e-4, f1.r[1] * Math.cos(a))], along: Math.sin(a), slope: 0, t: 1 });
    }
    const base = geo.count;
    for (const g of rings) {
      const c = o.colour(g.t);
      for (let k = 0; k <= cols; k++) {
        const ang = (k / cols) * Math.PI * 2;
        const cs = Math.cos(ang);
        const sn = Math.sin(ang);
        const q: V3 = [g.c[0] + g.S.x * cs * g.r[0] + g.O.x * sn * g.r[1], g.c[1] + g.S.y * cs * g.r[0] + g.O.y * sn * g.r[1], g.c[2] + g.S.z * cs * g.r[0] + g.O.z * sn * g.r[1]];
        const a = cs / g.r[0];
        const b = sn / g.r[1];
        let [nx, ny, nz] = [g.S.x * a + g.O.x * b, g.S.y * a + g.O.y * b, g.S.z * a + g.O.z * b];
        const l = Math.hypot(nx, ny, nz) || 1;
        // On a cap the normal turns along the axis; on the body it leans against the taper.
        const [kr, kt] = g.along ? [Math.sqrt(1 - g.along * g.along) / l, g.along] : [1 / l, -g.slope];
        nx = nx * kr + g.T.x * kt;
        ny = ny * kr + g.T.y * kt;
        nz = nz * kr + g.T.z * kt;
        geo.vertex(q, [nx, ny, nz], c, [k / cols, g.t]);
      }
    }
    const w = cols + 1;
    for (let r = 0; r < rings.length - 1; r++)
      for (let k = 0; k < cols; k++) {
        const a = base + r * w + k;
        geo.face(a, a + w, a + 1);
        geo.face(a + 1, a + w, a + w + 1);
      }
  };
  /** An ellipsoid of radii `r` about `c` (`rows`×`cols` quads). */
  const ellipsoid = (geo: Geo, c: V3, r: V3, colour: Color, rows: number, cols: number) =>
    geo.grid(low ? Math.max(4, rows - 4) : rows, low ? Math.max(8, cols - 6) : cols, (u, v) => {
      const phi = u * Math.PI * 2;
      const th = v * Math.PI;
      const n: V3 = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
      return { p: [c[0] + r[0] * n[0], c[1] + r[1] * n[1], c[2] + r[2] * n[2]], n: [n[0] / r[0], n[1] / r[1], n[2] / r[2]], c: colour };
    });

  // Materials per part: the light toon shader, and with a GPU an inverted-hull outline.
  const part = (shade: readonly number[], ink: string, { rim = 0.15, map = null as Texture | null, outline = 0.0018 } = {}) => ({
    main: track(liteToon(shade, rim, tint, map, low ? ink : null)),
    line: low ? null : track(hull(outline, ink)),
  });
  const skinMats = part([0.86, 0.66, 0.68], '#5a2e2a');
  const hairMats = part([0.55, 0.5, 0.68], '#1a0e0c', { rim: 0.06, outline: 0.0012 });
  const clothMats = part([0.6, 0.6, 0.78], '#1e1b3a', { outline: 0.002 });
  const meshes: Mesh[] = [];
  const add = (geo: Geo, mats: { main: Material; line: Material | null }, parent: Object3D, offset: V3 = [0, 0, 0]): Mesh[] => {
    const g = track(geo.geometry(offset));
    const a = new Mesh(g, mats.main);
    parent.add(a);
    meshes.push(a);
    if (!mats.line) return [a];
    const b = new Mesh(g, mats.line);
    parent.add(b);
    meshes.push(b);
    return [a, b];
  };

  const root = new Group();
  root.name = 'toon-persona';
  root.scale.setScalar(recipe.scale);
  const chest = new Group();
  chest.name = 'chest';
  root.add(chest);
  // Neck and head turn at the neck's base and at its top (the face driver's head motion).
  const NECK: V3 = [0, 1.45, -0.012];
  const HEAD_PIVOT: V3 = [0, 1.55, 0];
  const HC: V3 = [0, 1.627, 0];
  const neck = new Group();
  neck.name = 'neck';
  neck.position.set(...NECK);
  root.add(neck);
  const headPivot = new Group();
  headPivot.position.set(HEAD_PIVOT[0] - NECK[0], HEAD_PIVOT[1] - NECK[1], HEAD_PIVOT[2] - NECK[2]);
  neck.add(headPivot);
  const head = new Group();
  head.name = 'head';
  head.position.set(HC[0] - HEAD_PIVOT[0], HC[1] - HEAD_PIVOT[1], HC[2] - HEAD_PIVOT[2]);
  head.scale.setScalar(1.06);
  headPivot.add(head);

  // Head: an ellipsoid with a narrow jaw and a small chin; normals are the ellipsoid's, so the
  // toon terminator stays a clean curve over the face (no nose or cheek shadows).
  const R: V3 = [0.087, 0.1, 0.088];
  const mouthY = -0.072;
  const eyeY = -0.012;
  const eyeX = 0.033;
  const headPoint = (u: number, v: number, open: number) => {
    const phi = (u - 0.5) * Math.PI * 2;
    const th = v * Math.PI;
    const n: V3 = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
    let x = R[0] * n[0];
    let y = R[1] * n[1];
    let z = R[2] * n[2];
    const lowness = smooth(-n[1] * 1.25);
    const front = Math.max(0, n[2]);
    x *= 1 - 0.19 * lowness;
    y -= 0.007 * smooth(-n[1] * 1.6) * front ** 2;
    z -= 0.012 * lowness * (1 - front);
    const dn = Math.hypot(x / 0.007, (y + 0.042) / 0.012);
    if (n[2] > 0) z += 0.005 * Math.exp(-dn * dn);
    const jaw = smooth((mouthY - 0.004 - y) / 0.02) * smooth(n[2] / 0.4);
    y -= open * 0.016 * jaw;
    z -= open * 0.002 * jaw;
    const fringeShade = bun ? 0 : smooth((y - 0.028) / 0.02) * front;
    return { p: [x, y, z] as V3, n: [n[0] / R[0], n[1] / R[1], n[2] / R[2]] as V3, c: mixC(skin, skinShade, 0.7 * fringeShade) };
  };
  const HEAD_GRID: [number, number] = lowest ? [24, 32] : low ? [32, 40] : [44, 56];
  const headGeo = new Geo();
  headGeo.grid(...HEAD_GRID, (u, v) => headPoint(u, v, 0));
  const openGeo = new Geo();
  openGeo.grid(...HEAD_GRID, (u, v) => headPoint(u, v, 1));
  const headMeshes = add(headGeo, skinMats, head);
  const headG = headMeshes[0]!.geometry;
  headG.morphAttributes.position = [new BufferAttribute(new Float32Array(openGeo.pos.map((x, i) => x - headGeo.pos[i]!)), 3)];
  headG.morphTargetsRelative = true;
  for (const m of headMeshes) m.updateMorphTargets();

  // Decals: grids laid on the head's surface (cast from the front), drawn after it.
  const restMesh = new Mesh(headGeo.geometry());
  restMesh.updateMatrixWorld();
  const ray = new Raycaster();
  const from = new Vector3();
  const dir = new Vector3(0, 0, -1);
  // The face's depth at (x, y): the head's own surface function solved for (u, v) by Newton's
  // method (a few evaluations; a ray cast against the mesh would test every triangle), the mesh
  // (a ray) where that does not converge.
  const surfaceZ = (x: number, y: number) => {
    let u = 0.5 + Math.asin(Math.max(-0.9, Math.min(0.9, x / R[0]))) / (2 * Math.PI);
    let v = Math.acos(Math.max(-0.95, Math.min(0.95, y / R[1]))) / Math.PI;
    const e = 1e-4;
    for (let k = 0; k < 12; k++) {
      const p = headPoint(u, v, 0).p;
      const fx = p[0] - x;
      const fy = p[1] - y;
      if (Math.abs(fx) + Math.abs(fy) < 1e-7) return p[2];
      const pu = headPoint(u + e, v, 0).p;
      const pv = headPoint(u, v + e, 0).p;
      const a = (pu[0] - p[0]) / e;
      const b = (pv[0] - p[0]) / e;
      const c = (pu[1] - p[1]) / e;
      const d = (pv[1] - p[1]) / e;
      const det = a * d - b * c;
      if (Math.abs(det) < 1e-9) break;
      u -= (d * fx - b * fy) / det;
      v -= (-c * fx + a * fy) / det;
      if (u < 0.25 || u > 0.75 || v < 0.02 || v > 0.98) break;
    }
    ray.set(from.set(x, y, 0.5), dir);
    const hit = ray.intersectObject(restMesh, false)[0];
    return hit ? hit.point.z : 0;
  };
  type Shape = (u: number, v: number) => [number, number];
  const decal = (shape: Shape, material: Material, { cols = 8, rows = 6, lift = 0.0007, morphs = [] as [string, Shape][], order = 1, centre = [0, 0] as [number, number] } = {}) => {
    const build = (s: Shape) => {
      const pos: number[] = [];
      for (let r = 0; r <= rows; r++)
        for (let c = 0; c <= cols; c++) {
          const [x, y] = s(c / cols, r / rows);
          pos.push(x - centre[0], y - centre[1], surfaceZ(x, y) + lift);
        }
      return pos;
    };
    const pos = build(shape);
    const idx: number[] = [];
    const w = cols + 1;
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const a = r * w + c;
        idx.push(a, a + w, a + 1, a + 1, a + w, a + w + 1);
      }
    const uv: number[] = [];
    for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) uv.push(c / cols, 1 - r / rows);
    const g = track(new BufferGeometry());
    g.setAttribute('position', new BufferAttribute(new Float32Array(pos), 3));
    g.setAttribute('uv', new BufferAttribute(new Float32Array(uv), 2));
    g.setIndex(idx);
    if (morphs.length) {
      g.morphAttributes.position = morphs.map(([, s]) => new BufferAttribute(new Float32Array(build(s).map((x, i) => x - pos[i]!)), 3));
      g.morphTargetsRelative = true;
    }
    const m = new Mesh(g, material);
    m.position.set(centre[0], centre[1], 0);
    m.renderOrder = order;
    if (morphs.length) {
      m.updateMorphTargets();
      m.morphTargetDictionary = Object.fromEntries(morphs.map(([name], i) => [name, i]));
      m.morphTargetInfluences = morphs.map(() => 0);
    }
    head.add(m);
    meshes.push(m);
    return m;
  };
  const decalMaterial = (map: Texture, extra: { opacity?: number; depthTest?: boolean } = {}) =>
    track(new MeshBasicMaterial({ map, transparent: true, depthWrite: false, polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4, ...extra }));
  const rect = (cx: number, cy: number, hw: number, hh: number): Shape => (u, v) => [cx - hw + 2 * hw * u, cy + hh - 2 * hh * v];

  // Eyes: drawn frames — open, half, closed (a blink), smiling (the lower lid up: happy) and heavy
  // (the upper lid a quarter down: sad, concerned) — and a moving iris.
  const lashes = female ? 1 : 0;
  const frames = [
    [0, 0],
    [0.5, 0],
    [1, 0],
    [0.05, 0.55],
    [0.24, 0],
  ].map(([t, smile]) => ({ sclera: track(scleraTexture(Math.min(t!, 0.999), smile)), lines: track(linesTexture(t!, lashes, smile)) }));
  for (const f of frames) f.sclera.anisotropy = f.lines.anisotropy = aniso;
  const irisTex = track(irisTexture(col.eyes));
  const eyes = [-1, 1].map((s) => {
    const mat = track(eyeMaterial(irisTex, s < 0));
    const eh = female ? 0.021 : 0.019;
    // Wide (surprise): the eye opens taller, the iris with it.
    const mesh = decal(rect(s * eyeX, eyeY, 0.025, eh), mat, { cols: 8, rows: 6, morphs: [['wide', rect(s * eyeX, eyeY + 0.0025, 0.0262, eh * 1.2)]] });
    return { mesh, mat, frame: -1 };
  });
  const setEyeFrame = (e: (typeof eyes)[number], k: number) => {
    if (e.frame === k) return;
    e.frame = k;
    e.mat.uniforms.sclera!.value = frames[k]!.sclera;
    e.mat.uniforms.lines!.value = frames[k]!.lines;
  };
  for (const e of eyes) setEyeFrame(e, 0);

  // Brows: rest, raised, inner ends up (sad, concerned), lowered (a frown).
  const browColour = `#${mixC(hair, new Color(0, 0, 0), 0.2).getHexString()}`;
  const browR = track(browTexture(browColour));
  const browL = track(browR.clone());
  browL.wrapS = RepeatWrapping;
  browL.repeat.x = -1;
  const brows = [-1, 1].map((s) => {
    const hh = female ? 0.0045 : 0.0062;
    const at = (up: number, inner: number): Shape => (u, v) => {
      const innerness = s > 0 ? 1 - u : u;
      const [x, y] = rect(s * (eyeX + 0.002), eyeY + 0.034, 0.018, hh)(u, v);
      return [x, y + 0.004 * Math.sin(u * Math.PI) - 0.002 * (s > 0 ? u : 1 - u) + up + inner * (innerness - 0.35)];
    };
    // Drawn over the fringe (as anime characters' brows are): a raised brow would vanish under it.
    // Knit: the inner ends drawn toward the nose and down (concern, thought).
    const knit: Shape = (u, v) => {
      const innerness = s > 0 ? 1 - u : u;
      const [x, y] = at(0, 0)(u, v);
      return [x - s * 0.0045 * innerness, y - 0.003 * innerness];
    };
    return decal(at(0, 0), decalMaterial(s > 0 ? browR : browL, { depthTest: false }), {
      cols: 8,
      rows: 2,
      order: 4,
      morphs: [
        ['up', at(0.013, 0)],
        ['inner', at(0.001, 0.015)],
        ['down', at(-0.0055, -0.006)],
        ['knit', knit],
      ],
    });
  });

  // Cheeks: a blush that shows more and lifts with a smile.
  const blushTex = track(blushTexture());
  const cheeks = [-1, 1].map((s) => {
    const shape = (lift: number, k: number): Shape => (u, v) => {
      const [x, y] = rect(s * 0.047, -0.041, 0.015 * k, 0.01 * k)(u, v);
      return [x, y + lift];
    };
    return decal(shape(0, 1), decalMaterial(blushTex, { opacity: blushAmount }), { cols: 6, rows: 4, morphs: [['raise', shape(0.004, 1.12)]], order: 1 });
  });

  // Mouth: closed a line; each viseme a shape opening onto teeth, a dark interior and a tongue.
  const mouthW = 0.0155;
  const mouthAt = (p: { open: number; wide: number; round: number }, smile = 0, frown = 0): Shape => (u, v) => {
    const s = 2 * u - 1;
    const arc = Math.sqrt(Math.max(0, 1 - s * s));
    const corners = (0.0075 * smile - 0.0055 * frown) * s * s;
    const top = mouthY + 0.0012 * s * s * (1 - p.round) + p.round * p.open * 0.3 * arc + corners;
    const depth = 0.0008 + p.open * (p.round > 0 ? arc ** (0.6 + 0.4 * p.round) : arc ** 0.9);
    return [s * mouthW * p.wide * (1 + 0.08 * smile), top - depth * v - (p.round ? 0 : p.open * 0.08 * v)];
  };
  // A smile parts the lips a little (a closed smile barely read as happy at 640×480: 46 px changed).
  const SMILE = { ...MOUTH_SHAPES.sil, open: 0.004, wide: 1.06 };
  const visemeMorphs = (VISEMES.filter((v) => v !== 'sil') as Viseme[]).map((v) => [`viseme_${v}`, mouthAt(MOUTH_SHAPES[v])] as [string, Shape]);
  // The mouth and its lip line are drawn over the face without a depth test: the jaw's morph
  // moves the chin's surface down over where the open mouth lies (nothing else is ever in front).
  const mouth = decal(mouthAt(MOUTH_SHAPES.sil), decalMaterial(track(mouthTexture()), { depthTest: false }), {
    cols: 14,
    rows: 8,
    morphs: [...visemeMorphs, ['mouthSmile', mouthAt(SMILE, 1)], ['mouthFrown', mouthAt(MOUTH_SHAPES.sil, 0, 1)]],
    order: 2,
  });
  // The lip line: a stroke along the mouth's top edge (thicker when the lips press).
  const lipAt = (p: { open: number; wide: number; round: number; press?: number }, smile = 0, frown = 0): Shape => (u, v) => {
    const [x, y] = mouthAt(p, smile, frown)(u, 0);
    const th = 1 + (p.press ?? 0) * 0.8;
    return [x * 1.05, y + 0.0012 * th - 0.0024 * th * v];
  };
  const lipColour = `#${mixC(lin(col.lips), new Color(0, 0, 0), 0.35).getHexString()}`;
  const lipLine = decal(lipAt(MOUTH_SHAPES.sil), decalMaterial(track(strokeTexture(lipColour)), { depthTest: false }), {
    cols: 14,
    rows: 2,
    morphs: [...(VISEMES.filter((v) => v !== 'sil') as Viseme[]).map((v) => [`viseme_${v}`, lipAt(MOUTH_SHAPES[v])] as [string, Shape]), ['mouthSmile', lipAt(SMILE, 1)], ['mouthFrown', lipAt(MOUTH_SHAPES.sil, 0, 1)]],
    order: 3,
  });
  decal(rect(0.003, -0.046, 0.0035, 0.0022), decalMaterial(track(strokeTexture('rgba(150,80,70,0.55)', 32, 16, 0.45))), { cols: 2, rows: 2 });

  // Hair: a cap over the skull, then tapered strands for the fringe, the sides and the back.
  const hairC: V3 = [0, 0.006, -0.004];
  const HR: V3 = [0.092, 0.108, 0.098];
  const band = (y: number) => Math.exp(-(((y - 0.055) / 0.009) ** 2));
  // The angel ring: a sheen of the hair's own hue (a grey band on black hair otherwise).
  const sheen = mixC(hair.clone().multiplyScalar(3).addScalar(0.02), lin('#ffe8d0'), 0.35);
  const hairColour = (y: number) => mixC(hair, sheen, 0.45 * band(y));
  const hairGeo = new Geo();
  const sphere = (th: number, phi: number, k = 1): V3 => [hairC[0] + HR[0] * k * Math.sin(th) * Math.sin(phi), hairC[1] + HR[1] * k * Math.cos(th), hairC[2] + HR[2] * k * Math.sin(th) * Math.cos(phi)];
  hairGeo.grid(low ? 18 : 24, low ? 36 : 48, (u, v) => {
    const phi = (u - 0.5) * Math.PI * 2;
    const backness = (1 - Math.cos(phi)) / 2;
    const limit = (bun ? 0.9 : 0.98) + backness * 1.25;
    const p3 = sphere(v * limit, phi);
    return { p: p3, n: [p3[0] - hairC[0], p3[1] - hairC[1], p3[2] - hairC[2]], c: hairColour(p3[1]) };
  });
  const outward = (pt: V3) => new Vector3(pt[0] - hairC[0], pt[1] - hairC[1], pt[2] - hairC[2]);
  // Fringe: strands from the crown over the forehead, a parting off-centre; pulled back for a bun.
  const fringe = bun ? [-1.0, -0.7, -0.4, -0.12, 0.15, 0.42, 0.72, 1.02] : [-1.05, -0.8, -0.56, -0.34, -0.14, 0.2, 0.4, 0.62, 0.85, 1.08];
  fringe.forEach((phi0, i) => {
    const end = bun ? 0.95 + Math.abs(phi0) * 0.18 : 1.28 + (i % 2 ? -0.07 : 0.04) + Math.abs(phi0) * 0.12;
    const sweep = bun ? 0 : phi0 < 0.05 ? -0.22 : 0.22;
    strand(hairGeo, (t) => {
      const th = 0.3 + t * (end - 0.22);
      const phi = phi0 + sweep * t * t;
      const puff = 1.0 + (bun ? 0.03 : 0.065) * smooth(t / 0.3) - 0.02 * smooth((t - 0.6) / 0.4);
      const q = sphere(th, phi, puff);
      const past = bun ? 0 : smooth((t - 0.7) / 0.3);
      return [q[0], q[1] - past * 0.008, q[2] - past * 0.006];
    }, { width: (bun ? 0.024 : 0.019) - Math.abs(phi0) * 0.002, colour: (t) => hairColour(sphere(0.08 + t * end, phi0)[1]), out: outward, taper: bun ? 0.3 : 0.8 });
  });
  // Side locks in front of the ears.
  for (const s of [-1, 1])
    for (const [phi0, len, w] of long ? [[1.22, 0.2, 0.017], [1.42, 0.24, 0.02]] : [[1.25, 0.035, 0.016], [1.5, 0.03, 0.02]]) {
      strand(hairGeo, (t) => {
        const arc = Math.min(1, t / 0.45);
        const q = sphere(0.25 + arc * 1.3, s * phi0!, 1.0 + (long ? 0.11 : 0.05) * smooth(t / 0.25));
        const fall = Math.max(0, t - 0.45) / 0.55;
        return [q[0] + s * fall * 0.012, q[1] - fall * len!, q[2] + fall * 0.012];
      }, { width: w!, colour: (t) => hairColour(sphere(0.25 + Math.min(1, t / 0.45) * 1.3, phi0!)[1]), out: (pt) => new Vector3(s, 0, 0.3).add(outward(pt).multiplyScalar(4)), rows: 16 });
    }
  // Back: layered strands; long hair falls behind the shoulders.
  const backCount = long ? (low ? 16 : 20) : low ? 12 : 16;
  for (let k = 0; k < backCount; k++) {
    const phi0 = Math.PI * (0.5 + (k / (backCount - 1)) * 1.0);
    const s = Math.sin(phi0) >= 0 ? 1 : -1;
    const side = Math.abs(Math.sin(phi0));
    const len = long ? 0.3 + 0.035 * (k % 3) : 0.025 + 0.012 * (k % 2);
    strand(hairGeo, (t) => {
      const arc = long ? Math.min(1, t / 0.4) : t;
      const q = sphere(0.62 + arc * (long ? 1.08 : 1.3), phi0, 1.0 + (long ? 0.12 : 0.05) * smooth(t / 0.2) * (1 - 0.3 * arc));
      const fall = long ? Math.max(0, t - 0.4) / 0.6 : 0;
      return [q[0] + s * side * 0.045 * fall, q[1] - fall * len, q[2] - fall * (long ? 0.13 * side + 0.02 : 0.01)];
    }, { width: long ? 0.05 : 0.03, thick: 0.35, colour: () => hair, out: (pt) => outward(pt).setY(0).add(new Vector3(s * 0.02, 0, 0)), rows: 16, taper: long ? 0.5 : 0.9 });
  }
  if (bun) {
    const bc: V3 = [0, HR[1] * 0.95, -HR[2] * 0.45];
    hairGeo.grid(12, 20, (u, v) => {
      const phi = u * Math.PI * 2;
      const th = v * Math.PI;
      const n: V3 = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
      const q: V3 = [bc[0] + 0.042 * n[0], bc[1] + 0.036 * n[1], bc[2] + 0.04 * n[2]];
      return { p: q, n, c: hairColour(q[1] - 0.05) };
    });
    for (let k = 0; k < 5; k++) {
      const a0 = (k / 5) * Math.PI * 2;
      strand(hairGeo, (t) => {
        const a = a0 + t * 2.4;
        return [bc[0] + 0.044 * Math.sin(a), bc[1] + 0.012 * Math.cos(a * 0.7) + (t - 0.5) * 0.02, bc[2] + 0.042 * Math.cos(a)];
      }, { width: 0.012, thick: 0.4, colour: () => hair, out: (pt) => new Vector3(pt[0] - bc[0], pt[1] - bc[1], pt[2] - bc[2]), rows: 12, taper: 0.6 });
    }
  }
  if (long) {
    // A darker under-layer behind the strands, so gaps between them read as depth.
    hairGeo.grid(10, 24, (u, v) => {
      const phi = Math.PI * (0.42 + u * 1.16);
      const x = Math.sin(phi) * (0.094 + 0.05 * v);
      const y = -0.01 - v * 0.3;
      const z = Math.cos(phi) * (0.085 + 0.01 * v) - 0.015 - 0.1 * v * Math.abs(Math.sin(phi));
      return { p: [x, y, z], n: [Math.sin(phi), 0, Math.cos(phi)], c: mixC(hair, new Color(0, 0, 0), 0.35) };
    });
  }
  add(hairGeo, hairMats, head);

  // Body: neck, a torso with rounded shoulders (a painted top), arms with hands at rest, and for
  // the full body hips, legs and shoes.
  const sh = female ? 0.165 : 0.195;
  type Row = [number, number, number];
  const latheAt = (profile: Row[], cz = 0) => (u: number, v: number) => {
    const f = v * (profile.length - 1);
    const i = Math.min(profile.length - 2, Math.floor(f));
    const t = smooth(f - i) * 0.5 + (f - i) * 0.5;
    const [y0, rx0, rz0] = profile[i]!;
    const [y1, rx1, rz1] = profile[i + 1]!;
    const y = y0 + (y1 - y0) * t;
    const rx = rx0 + (rx1 - rx0) * t;
    const rz = rz0 + (rz1 - rz0) * t;
    const phi = (u - 0.5) * Math.PI * 2;
    const dy = (rx1 - rx0) / Math.max(1e-4, y1 - y0);
    return { p: [rx * Math.sin(phi), y, cz + rz * Math.cos(phi)] as V3, n: [Math.sin(phi) / rx, -dy * 0.02, Math.cos(phi) / rz] as V3 };
  };
  /** The normal of a surface p(u, v) at (u, v) by central differences, turned to agree with `hint`. */
  const smoothNormal = (p: (u: number, v: number) => V3, u: number, v: number, hint: readonly number[]): V3 => {
    const e = 1e-3;
    const a = p(u + e, v);
    const b = p(u - e, v);
    const c = p(u, Math.min(1, v + e));
    const d = p(u, Math.max(0, v - e));
    const du = new Vector3(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    const dv = new Vector3(c[0] - d[0], c[1] - d[1], c[2] - d[2]);
    const n = new Vector3().crossVectors(du, dv).normalize();
    if (n.x * hint[0]! + n.y * hint[1]! + n.z * hint[2]! < 0) n.negate();
    return [n.x, n.y, n.z];
  };
  const neckGeo = new Geo();
  const nk = female ? 1 : 1.4;
  // The neck widens into the shoulders at its base (the trapezius) and is shaded under the jaw.
  // (Extra rows about the jaw's shadow keep its edge crisp: the grid's rows are spread per profile row.)
  const neckAt = latheAt([[1.41, 0.05 * nk, 0.04 * nk], [1.45, 0.038 * nk, 0.034 * nk], [1.485, 0.032 * nk, 0.0305 * nk], [1.505, 0.031 * nk, 0.03 * nk], [1.525, 0.0305 * nk, 0.0295 * nk], [1.6, 0.03 * nk, 0.029 * nk]], -0.012);
  // The jaw's shadow falls on the neck as a toon shadow does: one shade with a soft edge, lowest
  // at the front.
  neckGeo.grid(low ? 10 : 15, low ? 18 : 24, (u, v) => {
    const at = neckAt(u, v);
    const front = Math.max(0, Math.cos((u - 0.5) * Math.PI * 2));
    const edge = 1.515 - 0.02 * front * front;
    return { p: at.p, n: smoothNormal((uu, vv) => neckAt(uu, vv).p, u, v, at.n), c: mixC(skin, skinShade, 0.15 + 0.75 * smooth((at.p[1] - edge) / 0.007)) };
  });
  add(neckGeo, skinMats, neck, NECK);

  const hip = female ? 0.155 : 0.14;
  const waist = female ? 0.118 : 0.138;
  // The shirt: a hem that stands off the hips and turns under, a waist, a chest, shoulders that
  // slope from the neck and tuck under the arms' shoulder balls (which round them into the arms).
  const torsoProfile: Row[] = [
    ...(full
      ? ([
          [0.912, hip - 0.014, 0.086],
          [0.93, hip + 0.009, 0.108],
          [0.975, hip + 0.003, 0.103],
          [1.07, waist, 0.094],
        ] as Row[])
      : ([[1.0, waist + 0.004, 0.094]] as Row[])),
    [1.19, female ? 0.126 : 0.148, 0.1],
    [1.29, female ? 0.138 : 0.16, 0.106],
    [1.345, sh * 0.88, 0.1],
    [1.385, sh * 0.82, 0.093],
    [1.413, sh * 0.74, 0.086],
    [1.437, sh * 0.58, 0.076],
    [1.46, 0.072, 0.06],
    [1.472, 0.055, 0.048],
    [1.48, 0.04, 0.036],
  ];
  const torsoAt = latheAt(torsoProfile);
  const torsoGeo = new Geo();
  // The chest stands forward of the lathe's ellipse (a bust or pectorals), the back is flatter.
  const chestAt = (u: number, v: number): V3 => {
    const p = torsoAt(u, v).p;
    const y = p[1];
    const fwd = Math.max(0, Math.cos((u - 0.5) * Math.PI * 2));
    const lobe = female ? Math.exp(-(((Math.abs(p[0]) - 0.05) / 0.045) ** 2)) * 0.024 * Math.exp(-(((y - 1.275) / 0.055) ** 2)) : 0.008 * Math.exp(-(((y - 1.3) / 0.07) ** 2));
    const back = Math.max(0, -Math.cos((u - 0.5) * Math.PI * 2));
    return [p[0], p[1], p[2] + lobe * fwd * fwd - 0.01 * back * back * smooth((y - 1.0) / 0.2)];
  };
  const white1 = lin('#ffffff');
  torsoGeo.grid(...((lowest ? [14, 28] : low ? [18, 40] : [24, 52]) as [number, number]), (u, v) => ({ p: chestAt(u, v), n: smoothNormal(chestAt, u, v, torsoAt(u, v).n), c: white1 }));
  const trim = mixC(shirt, new Color(0, 0, 0), 0.45);
  const [TW, TH] = lowest ? [256, 128] : low ? [512, 256] : [1024, 512];
  const shirtTexture = track(
    canvasTexture(TW, TH, (g, W, H) => {
      const img = g.createImageData(W, H);
      const rgb = (c: Color) => c.clone().convertLinearToSRGB().toArray().map((x) => x * 255);
      const [cShirt, cInner, cTrim, cFold] = [rgb(shirt), rgb(mixC(white, shirt, 0.12)), rgb(trim), rgb(mixC(shirt, new Color(0, 0, 0), 0.2))] as [number[], number[], number[], number[]];
      const texel = 1.5 * (1024 / W) * 0.001;
      const cover = (d: number) => smooth(0.5 + d / texel);
      const c = [0, 0, 0];
      const lerp = (to: number[], t: number) => {
        if (t > 0) for (let k = 0; k < 3; k++) c[k]! += (to[k]! - c[k]!) * t;
      };
      const sinPhi = Array.from({ length: W }, (_, i) => Math.sin(((i + 0.5) / W - 0.5) * Math.PI * 2));
      for (let j = 0; j < H; j++) {
        const row = torsoAt(0.75, (j + 0.5) / H);
        const y = row.p[1];
        const rx = row.p[0];
        const neckBand = cover(y - 1.462);
        const hem = full ? cover(0.95 - y) : 0;
        const underBust = female ? 0.6 * Math.exp(-(((y - 1.215) / 0.022) ** 2)) : 0;
        for (let i = 0; i < W; i++) {
          c[0] = cShirt[0]!;
          c[1] = cShirt[1]!;
          c[2] = cShirt[2]!;
          const u = (i + 0.5) / W;
          if (u > 0.25 && u < 0.75 && y > 1.21) {
            const x = rx * sinPhi[i]!;
            const edge = female ? (y - 1.36) * 0.42 - Math.abs(x) : -1;
            lerp(cInner, cover(edge));
            lerp(cTrim, cover(0.006 - Math.abs(edge)) * cover(y - 1.355));
          }
          // The soft shade the bust casts on the shirt below it.
          if (underBust > 0.01 && u > 0.25 && u < 0.75) lerp(cFold, underBust * Math.exp(-(((Math.abs(rx * sinPhi[i]!) - 0.05) / 0.04) ** 2)));
          lerp(cTrim, Math.max(neckBand, hem));
          const k = (j * W + i) * 4;
          img.data[k] = c[0]!;
          img.data[k + 1] = c[1]!;
          img.data[k + 2] = c[2]!;
          img.data[k + 3] = 255;
        }
      }
      g.putImageData(img, 0, 0);
    }, aniso),
  );
  // Painted row by row from the bottom of the surface up: uv v = row / height, no flip.
  shirtTexture.flipY = false;
  const shirtMats = part([0.6, 0.6, 0.78], '#1e1b3a', { outline: 0.002, map: shirtTexture });
  const torsoMeshes = add(torsoGeo, shirtMats, chest);

  // Arms: a shoulder rounded into a short sleeve with a hem, a bare upper arm, an elbow, a forearm
  // that swells and tapers to the wrist, and a hand turning at the wrist: a mitten-like palm, a
  // thumb and four fingers held together, softly curled (at rest the palm to the thigh). Each
  // side turns at the shoulder, the elbow and the wrist (rest, presenter pose, wave, point, shrug);
  // each joint is a ball the parts on both sides sink into, so no bend opens a gap or a corner.
  const arms: { side: number; upper: Group; fore: Group; hand: Group; shoulderY: number; presenting: Quaternion; index: { curled: Mesh[]; straight: Mesh[] } | null }[] = [];
  const k = female ? 0.88 : 1;
  const sleeveTrim = mixC(shirt, new Color(0, 0, 0), 0.3);
  for (const s of [-1, 1]) {
    const clothArm = new Geo();
    const upperSkin = new Geo();
    const foreGeo = new Geo();
    const handGeo = new Geo();
    const top: V3 = [s * (sh - 0.038 * k), 1.375, -0.008];
    const elbow: V3 = [s * (sh + 0.026), 1.13, -0.03];
    const wrist: V3 = [s * (sh + 0.024), 0.895, 0.028];
    const seg = (a: V3, b: V3, t0 = 0, t1 = 1) => (t: number): V3 => {
      const u = t0 + (t1 - t0) * t;
      return [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u];
    };
    const front = new Vector3(0, 0, 1);
    // The shoulder: a ball of the shirt under the sleeve's top, wider than the arm (the deltoid).
    ellipsoid(clothArm, [top[0] - s * 0.002, top[1] - 0.026, top[2]], [0.053 * k, 0.051 * k, 0.05 * k], shirt, 9, 16);
    // The sleeve: a flared tube to mid upper arm, its hem a darker band that turns in under the edge.
    limb(clothArm, seg(top, elbow, 0.08, 0.44), (t) => {
      // It grows out of the shoulder ball (its first ring well inside it: no edge to poke out).
      const r = (0.049 - 0.0015 * t) * k * (0.7 + 0.3 * smooth(t / 0.4));
      return [r, r * 0.96];
    }, { rows: 4, cols: 16, ref: front, colour: () => shirt });
    limb(clothArm, seg(top, elbow, 0.43, 0.5), (t) => {
      const r = (0.0485 + 0.0015 * t) * k * (1 - 0.3 * smooth((t - 0.6) / 0.4));
      return [r, r * 0.95];
    }, { rows: 3, cols: 16, ref: front, colour: () => sleeveTrim });
    // The bare upper arm, in the sleeve's shadow just below its hem (0.5 of the way down).
    limb(upperSkin, seg(top, elbow, 0.35, 1), (t) => [(0.04 - 0.007 * t) * k, (0.038 - 0.006 * t) * k], { rows: 6, cols: 12, ref: front, colour: (t) => mixC(skinShade, skin, smooth((t - 0.26) / 0.14)) });
    // The elbow and the forearm (wider than deep, its widest a quarter of the way down).
    ellipsoid(foreGeo, elbow, [0.033 * k, 0.033 * k, 0.031 * k], skin, 6, 12);
    limb(foreGeo, seg(elbow, wrist, 0, 1.02), (t) => {
      const r = (0.032 + 0.005 * Math.sin(Math.min(1, t / 0.3) * Math.PI * 0.5) - 0.013 * smooth((t - 0.25) / 0.75)) * k;
      return [r, r * 0.86];
    }, { rows: 5, cols: 12, ref: front, colour: () => skin });
    // The hand, in its own frame: y up the forearm, x out of the back of the hand (the palm
    // faces the thigh), z across (the thumb's side forward); turned about the forearm by ≈ 30° so
    // from the front it is seen part from the back, not edge-on.
    const U = new Vector3(elbow[0] - wrist[0], elbow[1] - wrist[1], elbow[2] - wrist[2]).normalize();
    const turn = s * 0.5;
    const X = new Vector3(s, 0, 0).sub(U.clone().multiplyScalar(s * U.x)).normalize().applyAxisAngle(U, turn);
    const Z = new Vector3().crossVectors(X, U).multiplyScalar(s);
    const h = female ? 0.9 : 1;
    const local = (x: number, y: number, z: number): V3 => [wrist[0] + h * (X.x * x + U.x * y + Z.x * z), wrist[1] + h * (X.y * x + U.y * y + Z.y * z), wrist[2] + h * (X.z * x + U.z * y + Z.z * z)];
    const localDir = (x: number, y: number, z: number) => X.clone().multiplyScalar(x).add(U.clone().multiplyScalar(y)).add(Z.clone().multiplyScalar(z));
    ellipsoid(handGeo, wrist, [0.0215 * k, 0.02 * k, 0.0195 * k], skin, 6, 12);
    // Palm: a rounded slab, thickest at the heel; the ball of the thumb on its inner front edge.
    handGeo.grid(low ? 6 : 8, low ? 10 : 14, (u, v) => {
      const phi = u * Math.PI * 2;
      const th = v * Math.PI;
      const n: V3 = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
      const heel = 0.5 + 0.5 * n[1];
      const r: V3 = [0.0135 + 0.003 * heel, 0.04, 0.0335];
      const sq = (x: number) => Math.sign(x) * Math.abs(x) ** 0.8;
      const p = local(r[0] * n[0], -0.038 + r[1] * n[1], r[2] * sq(n[2]));
      const nn = localDir(n[0] / r[0], n[1] / r[1], n[2] / r[2]);
      return { p, n: [nn.x, nn.y, nn.z], c: skin };
    });
    ellipsoid(handGeo, local(-0.007, -0.03, 0.021), [0.012 * h, 0.024 * h, 0.014 * h], skin, 6, 10);
    // The thumb: from the ball of the thumb, down, forward and in towards the fingers.
    limb(handGeo, (t) => local(-0.008 - 0.014 * t * t, -0.036 - 0.038 * t, 0.03 + 0.012 * t - 0.012 * t * t), (t) => [(0.0098 - 0.0016 * t) * h, (0.0092 - 0.0015 * t) * h], { rows: 4, cols: 10, ref: localDir(1, 0, 0), colour: () => skin, capEnd: 3 });
    // Fingers: side by side, the middle longest, each curled a little more than the one before.
    const fingers: [number, number, number, number][] = [
      // z, length, radius, curl (rad)
      [0.0235, 0.052, 0.0086, 0.75],
      [0.0078, 0.058, 0.0089, 0.85],
      [-0.0078, 0.054, 0.0085, 0.95],
      [-0.022, 0.044, 0.0077, 1.1],
    ];
    const finger = (geo: Geo, [z, len, r, curl]: [number, number, number, number]) => {
      const spread = -z * 0.25;
      limb(geo, (t) => {
        const a = curl * t;
        return local(0.002 - (len * (1 - Math.cos(a))) / curl, -0.068 - (len * Math.sin(a)) / curl, z + spread * len * t);
      }, (t) => [r * h * (1 - 0.15 * t), r * h * 0.9 * (1 - 0.15 * t)], { rows: 4, cols: 8, ref: localDir(1, 0, 0), colour: () => skin, capEnd: 2 });
    };
    // The right hand (the one that points) has its index finger twice, curled and straight, one
    // shown at a time (a mesh each; the straight one drawn only while pointing).
    const indexGeo = s < 0 ? new Geo() : handGeo;
    fingers.forEach((f, i) => finger(i === 0 ? indexGeo : handGeo, f));
    const pointGeo = s < 0 ? new Geo() : null;
    if (pointGeo) finger(pointGeo, [fingers[0]![0], fingers[0]![1] * 1.15, fingers[0]![2], 0.12]);
    const upper = new Group();
    upper.name = s < 0 ? 'rightUpperArm' : 'leftUpperArm';
    upper.position.set(...top);
    chest.add(upper);
    const fore = new Group();
    fore.name = s < 0 ? 'rightLowerArm' : 'leftLowerArm';
    fore.position.set(elbow[0] - top[0], elbow[1] - top[1], elbow[2] - top[2]);
    upper.add(fore);
    const hand = new Group();
    hand.name = s < 0 ? 'rightHand' : 'leftHand';
    hand.position.set(wrist[0] - elbow[0], wrist[1] - elbow[1], wrist[2] - elbow[2]);
    fore.add(hand);
    add(clothArm, clothMats, upper, top);
    add(upperSkin, skinMats, upper, top);
    add(foreGeo, skinMats, fore, elbow);
    add(handGeo, skinMats, hand, wrist);
    const index = pointGeo ? { curled: add(indexGeo, skinMats, hand, wrist), straight: add(pointGeo, skinMats, hand, wrist) } : null;
    for (const m of index?.straight ?? []) m.visible = false;
    // The presenter's hands (full body at rest): the backs of the hands to the visitor, tipped up
    // a little towards the camera, fingers pointing in and a little down, thumbs on top — one
    // hand laid over the other, as a host or receptionist stands. Kept as the hand's orientation
    // in the figure's frame; the wrist turns to it whatever the forearm does.
    const backT = new Vector3(-s * 0.1, 0.3, 1).normalize();
    const upT = new Vector3(s, 0.2, s > 0 ? -0.22 : 0.02).normalize();
    backT.sub(upT.clone().multiplyScalar(backT.dot(upT))).normalize();
    const thumbT = new Vector3().crossVectors(backT, upT).multiplyScalar(s);
    const presenting = new Quaternion().setFromRotationMatrix(new Matrix4().makeBasis(backT, upT, thumbT).multiply(new Matrix4().makeBasis(X, U, Z).transpose()));
    arms.push({ side: s, upper, fore, hand, shoulderY: top[1], presenting, index });
  }

  if (full) {
    const legs = lin(col.legs);
    const shoes = lin(col.shoes);
    const legGeo = new Geo();
    // The seat of the trousers is as wide as the two legs below it (no step where they meet).
    const seat = Math.max(hip, 0.156);
    const pelvisAt = latheAt([[0.76, seat * 0.97, 0.098], [0.86, seat, 0.102], [0.93, hip, 0.1], [1.0, 0.13, 0.09]]);
    // The shirt's hem shades the trousers just below it.
    const legShade = legs.clone().multiplyScalar(0.62);
    legGeo.grid(10, low ? 28 : 40, (u, v) => {
      const at = pelvisAt(u, v);
      return { ...at, c: mixC(legs, legShade, smooth((at.p[1] - 0.865) / 0.05)) };
    });
    for (const s of [-1, 1]) {
      const a: V3 = [s * 0.08, 0.86, 0];
      const b: V3 = [s * 0.1, 0.09, 0.005];
      strand(legGeo, (t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t], { width: 0.07, thick: 1, colour: () => legs, out: () => new Vector3(s, 0, 0.2), profile: (t) => 1 - 0.38 * smooth(t * 1.1), rows: 12, cols: 16 });
    }
    add(legGeo, clothMats, root);
    const shoeGeo = new Geo();
    for (const s of [-1, 1])
      shoeGeo.grid(8, 16, (u, v) => {
        const phi = u * Math.PI * 2;
        const th = v * Math.PI;
        const n: V3 = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
        return { p: [s * 0.104 + 0.045 * n[0], Math.max(0.004, 0.045 + 0.045 * n[1]), 0.035 + 0.115 * n[2]], n, c: shoes };
      });
    add(shoeGeo, clothMats, root);
  }

  const names = new Set<string>([...VISEMES.map((v) => `viseme_${v}`), 'eyeBlinkLeft', 'eyeBlinkRight', 'mouthSmile', 'browInnerUp']);
  const debug = { blinkFrame: [0, 0] as [number, number], gaze: [0, 0] as [number, number] };
  const setMorph = (m: Mesh, name: string, w: number) => {
    const i = m.morphTargetDictionary?.[name];
    if (i !== undefined) m.morphTargetInfluences![i] = w;
  };
  let vertices = 0;
  let triangles = 0;
  for (const m of meshes) {
    if ((m.material as MeshBasicMaterial).side === BackSide) continue;
    vertices += m.geometry.attributes.position!.count;
    triangles += (m.geometry.index?.count ?? 0) / 3;
  }

  const wrist = new Quaternion();
  return {
    root,
    head,
    names,
    mouth,
    debug,
    stats: { vertices, triangles, meshes: meshes.length, buildMs: Math.round(performance.now() - started) },
    apply(face, targets) {
      // The body's weight shift (a slow lean from the floor up), head and neck (the driver's turn), breathing in the chest.
      root.rotation.z = face.lean * 0.5;
      // Arms: at rest, or where a gesture puts them.
      for (const arm of arms) {
        const pose = armPoseOf(face, arm.side);
        // A full body rests as a presenter (hands together in front), fading out while a gesture moves the arm.
        const idle = full ? presenterArm(face, arm.side, 1 - armAway(pose)) : idleArm(face, arm.side);
        arm.upper.rotation.set(pose.upper[0] + idle.upper[0], pose.upper[1] + idle.upper[1], pose.upper[2] + idle.upper[2]);
        arm.fore.rotation.set(pose.fore[0] + idle.fore[0], pose.fore[1] + idle.fore[1], pose.fore[2] + idle.fore[2]);
        arm.upper.position.y = arm.shoulderY + pose.lift + idle.lift;
        // The wrist: a gesture's turn of the hand; at rest as a presenter, the hands laid together.
        const turn = pose.hand ?? [0, 0, 0];
        arm.hand.rotation.set(turn[0], turn[1], turn[2]);
        const rest = full ? 1 - armAway(pose) : 0;
        if (rest > 0) arm.hand.quaternion.slerp(wrist.copy(arm.upper.quaternion).multiply(arm.fore.quaternion).invert().multiply(arm.presenting), rest);
        // The index finger straightens to point.
        if (arm.index) {
          const pointing = (pose.index ?? 0) > 0.5;
          for (const m of arm.index.curled) m.visible = !pointing;
          for (const m of arm.index.straight) m.visible = pointing;
        }
      }
      neck.rotation.set(face.headPitch * 0.4, face.headYaw * 0.4, face.headRoll * 0.4);
      headPivot.rotation.set(face.headPitch * 0.6, face.headYaw * 0.6, face.headRoll * 0.6);
      for (const t of torsoMeshes) t.scale.set(1 + face.breath * 0.006, 1, 1 + face.breath * 0.01);
      headPivot.position.y = HEAD_PIVOT[1] - NECK[1] + face.breath * 0.0012;
      // Jaw and mouth.
      const jaw = Math.min(1, face.jaw / 0.75);
      for (const m of headMeshes) m.morphTargetInfluences![0] = jaw;
      const mood = face.mood;
      const mw = face.moodWeight;
      const frown = (mood === 'sad' ? 0.9 : mood === 'concerned' ? 0.5 : 0) * mw;
      // Surprise parts the lips in a small "o" while the mouth is otherwise closed.
      const awe = mood === 'surprised' ? 0.45 * mw * Math.max(0, 1 - jaw * 2) : 0;
      for (const m of [mouth, lipLine]) {
        for (const v of VISEMES) if (v !== 'sil') setMorph(m, `viseme_${v}`, (targets.get(`viseme_${v}`) ?? 0) + (v === 'O' ? awe : 0));
        setMorph(m, 'mouthSmile', Math.max(0, face.smile - frown));
        setMorph(m, 'mouthFrown', frown);
      }
      // Eyes: three drawn frames, chosen by the blink weight; the iris follows the gaze.
      const blinks = [face.blinkRight, face.blinkLeft];
      // Open eyes show the mood: smiling with a smile, heavy-lidded when sad or concerned, wide in surprise.
      const open = face.smile > 0.45 ? 3 : (mood === 'sad' || mood === 'concerned') && mw > 0.4 ? 4 : 0;
      eyes.forEach((e, i) => {
        const b = blinks[i]!;
        const k = b < 0.3 ? 0 : b < 0.75 ? 1 : 2;
        setEyeFrame(e, k === 0 ? open : k);
        setMorph(e.mesh, 'wide', mood === 'surprised' && k === 0 ? mw : 0);
        debug.blinkFrame[i] = k;
        (e.mat.uniforms.gaze!.value as Vector2).set(Math.max(-0.14, Math.min(0.14, face.eyeYaw * 0.7)), Math.max(-0.1, Math.min(0.1, face.eyePitch * 0.6)));
      });
      debug.gaze = [face.eyeYaw * 0.7, face.eyePitch * 0.6];
      // Brows: up with emphasis and surprise, inner ends up when sad or concerned, one lowered in thought.
      const inner = (mood === 'sad' || mood === 'concerned' ? 1 : 0) * mw;
      brows.forEach((b, i) => {
        const thinking = mood === 'thinking' ? mw : 0;
        setMorph(b, 'up', Math.min(1, face.browUp * (1 - 0.6 * inner) + (i === 1 ? thinking * 0.5 : 0)));
        setMorph(b, 'inner', inner);
        setMorph(b, 'down', i === 0 ? thinking * 0.8 : 0);
        setMorph(b, 'knit', (mood === 'concerned' ? 1 : mood === 'thinking' ? 0.6 : mood === 'sad' ? 0.3 : 0) * mw);
      });
      // Cheeks: more blush, lifted, with a smile.
      for (const c of cheeks) {
        setMorph(c, 'raise', Math.min(1, face.smile));
        (c.material as MeshBasicMaterial).opacity = blushAmount * (0.5 + 0.5 * Math.min(1, face.smile));
      }
    },
    dispose() {
      for (const d of disposables) d.dispose();
      root.removeFromParent();
    },
  };
}
