// Candidate (a): the same persona rebuilt for toon shading, all in code. MToon (three-vrm) with
// vertex colours per part and an inverted-hull outline (MToon's own outline pass), smooth
// analytic normals (no facets), anime proportions (a larger head, large eyes low on the face,
// small nose and chin), eyes/brows/mouth as decals with textures drawn on a canvas, hair as a
// cap plus tapered strand cards with volume, clothing with a painted neckline, trims and folds,
// and a soft gradient background. The "aa" viseme is a morph: the jaw drops and the mouth
// decal opens onto teeth, a dark interior and a tongue; a blink swaps the eye texture.
/* global document, Path2D -- runs in the browser */
import {
  AmbientLight,
  BackSide,
  BufferAttribute,
  BufferGeometry,
  CanvasTexture,
  Color,
  DirectionalLight,
  Group,
  Mesh,
  MeshBasicMaterial,
  Raycaster,
  RepeatWrapping,
  SRGBColorSpace,
  Vector3,
} from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { MToonMaterial } from '@pixiv/three-vrm';

const PEOPLE = {
  maya: { skin: '#f1c9a5', hair: '#3b2314', shirt: '#4f46e5', eyes: '#3f6b3a', lip: '#b85c5c', hairStyle: 'long', build: 'f', bg: ['#eef2ff', '#c7d2fe', '#6366f1'] },
  amara: { skin: '#8d5524', hair: '#111827', shirt: '#b45309', eyes: '#2b1a10', lip: '#6e2f2a', hairStyle: 'bun', build: 'f', bg: ['#fffbeb', '#fde68a', '#b45309'] },
  leo: { skin: '#c68642', hair: '#1b1b1b', shirt: '#0f766e', eyes: '#3b2a1a', lip: '#9a4a3c', hairStyle: 'short', build: 'm', bg: ['#f0fdfa', '#99f6e4', '#0f766e'] },
};

// Harness options, to find what a frame's time depends on: &aniso (anisotropic filtering),
// &hull=basic (flat-colour outline), &mat=lite|basic (light toon shader, unlit), &lod=low,
// &lines=ink|hair+head+… (N·V ink, or outlines on those parts only).
const query = new URLSearchParams(globalThis.location?.search ?? '');
const OPTIONS = { aniso: Number(query.get('aniso') ?? 4), hull: query.get('hull') ?? 'mtoon', mat: query.get('mat') ?? 'mtoon', lod: query.get('lod') ?? 'high', lines: query.get('lines') ?? 'all' };

const smooth = (x) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));
const lin = (hex) => new Color(hex); // three converts sRGB hex to the linear working space
const mixC = (a, b, t) => a.clone().lerp(b, t);

/** Geometry under construction: positions, normals, colours, uvs, triangles. */
class Geo {
  constructor() {
    this.pos = [];
    this.nrm = [];
    this.col = [];
    this.uv = [];
    this.idx = [];
  }
  get count() {
    return this.pos.length / 3;
  }
  vertex(p, n, c, uv = [0, 0]) {
    this.pos.push(...p);
    const l = Math.hypot(...n) || 1;
    this.nrm.push(n[0] / l, n[1] / l, n[2] / l);
    this.col.push(c.r, c.g, c.b);
    this.uv.push(...uv);
    return this.count - 1;
  }
  /** rows×cols quads from f(u, v) → {p, n, c}; triangles are turned to face along n. */
  grid(rows, cols, f) {
    const base = this.count;
    for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) {
      const { p, n, c: col } = f(c / cols, r / rows);
      this.vertex(p, n, col, [c / cols, r / rows]);
    }
    const w = cols + 1;
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const a = base + r * w + c;
      this.face(a, a + w, a + 1);
      this.face(a + 1, a + w, a + w + 1);
    }
  }
  face(a, b, c) {
    const P = (i) => this.pos.slice(i * 3, i * 3 + 3);
    const [A, B, C] = [P(a), P(b), P(c)];
    const u = [B[0] - A[0], B[1] - A[1], B[2] - A[2]];
    const v = [C[0] - A[0], C[1] - A[1], C[2] - A[2]];
    const x = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    let d = 0;
    for (const i of [a, b, c]) for (let k = 0; k < 3; k++) d += x[k] * this.nrm[i * 3 + k];
    if (d >= 0) this.idx.push(a, b, c);
    else this.idx.push(a, c, b);
  }
  geometry() {
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(new Float32Array(this.pos), 3));
    g.setAttribute('normal', new BufferAttribute(new Float32Array(this.nrm), 3));
    g.setAttribute('color', new BufferAttribute(new Float32Array(this.col), 3));
    g.setAttribute('uv', new BufferAttribute(new Float32Array(this.uv), 2));
    g.setIndex(this.idx);
    return g;
  }
}

/** A tapered strand (hair card with thickness, or a trim ribbon) along path(t), t in [0, 1]. */
function strand(geo, path, { width, thick = 0.3, colour, out, rows: rows0 = 14, cols: cols0 = 6, taper = 0.8 }) {
  const rows = OPTIONS.lod === 'low' ? Math.ceil(rows0 * 0.7) : rows0;
  const cols = OPTIONS.lod === 'low' ? Math.max(5, cols0 - 1) : cols0;
  const base = geo.count;
  for (let r = 0; r <= rows; r++) {
    const t = r / rows;
    const p = path(t);
    const a = path(Math.max(0, t - 0.01));
    const b = path(Math.min(1, t + 0.01));
    const T = new Vector3(b[0] - a[0], b[1] - a[1], b[2] - a[2]).normalize();
    const O = out(p, t).normalize();
    O.sub(T.clone().multiplyScalar(O.dot(T))).normalize();
    const S = new Vector3().crossVectors(T, O).normalize();
    const w = width * (t < 0.08 ? 0.75 + 0.25 * (t / 0.08) : 1) * Math.max(0.02, (1 - t) ** taper);
    const th = w * thick + 0.0006;
    const c = colour(t);
    for (let k = 0; k <= cols; k++) {
      const ang = (k / cols) * Math.PI * 2;
      const cs = Math.cos(ang);
      const sn = Math.sin(ang);
      const q = [p[0] + S.x * cs * w + O.x * sn * th, p[1] + S.y * cs * w + O.y * sn * th, p[2] + S.z * cs * w + O.z * sn * th];
      // The normal leans outwards so a flat card shades like the volume it stands for.
      const n = S.clone().multiplyScalar(cs / w).add(O.clone().multiplyScalar(sn / th)).normalize().add(O.clone().multiplyScalar(0.9));
      geo.vertex(q, [n.x, n.y, n.z], c, [k / cols, t]);
    }
  }
  const w = cols + 1;
  for (let r = 0; r < rows; r++) for (let k = 0; k < cols; k++) {
    const a = base + r * w + k;
    geo.face(a, a + w, a + 1);
    geo.face(a + 1, a + w, a + w + 1);
  }
}

/**
 * A cheap inverted hull: back faces pushed out along the normal, one flat colour (no lighting
 * in the fragment shader; MToon's outline pass lights its outline like the surface).
 */
function basicHull(width, colour) {
  const m = new MeshBasicMaterial({ color: new Color(colour), side: BackSide });
  m.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader.replace('#include <morphtarget_vertex>', `#include <morphtarget_vertex>\ntransformed += normalize( normal ) * ${width.toFixed(5)};`);
  };
  m.isOutline = true;
  return m;
}

/**
 * A light toon shader: MeshBasicMaterial plus one lambert term stepped into lit/shade, with the
 * light fixed in view space (the page's camera and lights do not move), and a thin rim.
 * A few instructions per pixel instead of MToon's full light loop. With `ink`, lines without a
 * second pass: where the surface turns away from the eye (N·V small) it darkens to that colour.
 */
function liteToon(shadeColour, rim, map, ink = null) {
  const m = new MeshBasicMaterial({ vertexColors: true, map });
  const shadeV = shadeColour.map((x) => (0.25 + 0.75 * x).toFixed(3)).join(', ');
  const inkV = ink ? new Color(ink).toArray().map((x) => x.toFixed(3)).join(', ') : null;
  m.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader
      .replace('void main() {', 'varying vec3 vToonN;\nvarying vec3 vToonV;\nvoid main() {')
      .replace('#include <project_vertex>', '#include <project_vertex>\nvToonN = normalize( normalMatrix * normal );\nvToonV = - mvPosition.xyz;');
    shader.fragmentShader = shader.fragmentShader
      .replace('void main() {', 'varying vec3 vToonN;\nvarying vec3 vToonV;\nvoid main() {')
      .replace('#include <color_fragment>', `#include <color_fragment>
        vec3 toonN = normalize( vToonN );
        float toonNV = dot( toonN, normalize( vToonV ) );
        float toonLit = smoothstep( -0.12, 0.0, dot( toonN, normalize( vec3( -0.42, 0.52, 0.74 ) ) ) );
        diffuseColor.rgb *= mix( vec3( ${shadeV} ), vec3( 1.0 ), toonLit );
        diffuseColor.rgb += ${rim.toFixed(3)} * pow( 1.0 - abs( toonNV ), 4.0 );
        ${inkV ? `diffuseColor.rgb = mix( diffuseColor.rgb, vec3( ${inkV} ), 0.95 * ( 1.0 - smoothstep( 0.16, 0.34, toonNV ) ) );` : ''}`);
  };
  return m;
}

// ── Textures drawn in code ──────────────────────────────────────────────────────────────
function canvasTexture(w, h, draw) {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  draw(c.getContext('2d'), w, h);
  const t = new CanvasTexture(c);
  t.colorSpace = SRGBColorSpace;
  t.anisotropy = OPTIONS.aniso;
  return t;
}
const shade = (hex, k) => {
  const c = new Color(hex);
  return `#${c.multiplyScalar(k).getHexString()}`;
};
const tint = (hex, to, k) => `#${new Color(hex).lerp(new Color(to), k).getHexString()}`;

/** One eye (its outer corner on the right when outerRight), with lashes, iris, pupil, highlights. */
function eyeTexture(iris, outerRight, lashes = 1) {
  return canvasTexture(256, 200, (g, W, H) => {
    if (!outerRight) {
      g.translate(W, 0);
      g.scale(-1, 1);
    }
    const inner = [0.12 * W, 0.56 * H];
    const outer = [0.9 * W, 0.44 * H];
    const lid = () => {
      g.moveTo(...inner);
      g.bezierCurveTo(0.22 * W, 0.16 * H, 0.7 * W, 0.08 * H, ...outer);
    };
    const sclera = new Path2D();
    sclera.moveTo(...inner);
    sclera.bezierCurveTo(0.22 * W, 0.16 * H, 0.7 * W, 0.08 * H, ...outer);
    sclera.bezierCurveTo(0.82 * W, 0.8 * H, 0.3 * W, 0.95 * H, ...inner);
    const grad = g.createLinearGradient(0, 0.15 * H, 0, 0.6 * H);
    grad.addColorStop(0, '#b9b4cc');
    grad.addColorStop(1, '#fdfcff');
    g.fillStyle = grad;
    g.fill(sclera);
    g.save();
    g.clip(sclera);
    // Iris: tall, dark at the top (the lid's shadow), light below.
    const cx = 0.52 * W;
    const cy = 0.56 * H;
    const rx = 0.2 * W;
    const ry = 0.4 * H;
    const ig = g.createLinearGradient(0, cy - ry, 0, cy + ry);
    ig.addColorStop(0, shade(iris, 0.3));
    ig.addColorStop(0.45, iris);
    ig.addColorStop(1, tint(iris, '#fff8e0', 0.55));
    g.fillStyle = ig;
    g.beginPath();
    g.ellipse(cx, cy, rx, ry, 0, 0, Math.PI * 2);
    g.fill();
    g.lineWidth = 5;
    g.strokeStyle = shade(iris, 0.25);
    g.stroke();
    g.fillStyle = '#160c10';
    g.beginPath();
    g.ellipse(cx, cy + 0.02 * H, 0.085 * W, 0.17 * H, 0, 0, Math.PI * 2);
    g.fill();
    // A lighter crescent low in the iris, then the highlights (light from the upper left).
    g.fillStyle = tint(iris, '#ffffff', 0.45);
    g.globalAlpha = 0.6;
    g.beginPath();
    g.ellipse(cx, cy + 0.22 * H, 0.12 * W, 0.08 * H, 0, 0, Math.PI * 2);
    g.fill();
    g.globalAlpha = 1;
    g.restore();
    g.save();
    if (!outerRight) {
      g.setTransform(1, 0, 0, 1, 0, 0);
    }
    const hx = outerRight ? 0.43 * W : W - 0.61 * W;
    g.fillStyle = '#ffffff';
    g.beginPath();
    g.ellipse(hx, 0.4 * H, 0.065 * W, 0.08 * H, -0.4, 0, Math.PI * 2);
    g.fill();
    g.beginPath();
    g.ellipse(hx + 0.16 * W, 0.72 * H, 0.028 * W, 0.035 * H, 0, 0, Math.PI * 2);
    g.fill();
    g.restore();
    // Upper lash line, thicker to the outer corner, with a flick; a thin lower line; a crease.
    g.strokeStyle = '#21120f';
    g.lineCap = 'round';
    g.lineJoin = 'round';
    g.lineWidth = 7 + 4 * lashes;
    g.beginPath();
    lid();
    g.stroke();
    g.fillStyle = '#21120f';
    g.beginPath();
    g.globalAlpha = lashes;
    g.moveTo(0.76 * W, 0.2 * H);
    g.quadraticCurveTo(0.94 * W, 0.22 * H, 0.99 * W, 0.3 * H);
    g.quadraticCurveTo(0.93 * W, 0.42 * H, 0.86 * W, 0.47 * H);
    g.fill();
    g.globalAlpha = 1;
    g.lineWidth = 3.5;
    g.strokeStyle = 'rgba(70,35,35,0.75)';
    g.beginPath();
    g.moveTo(0.5 * W, 0.92 * H);
    g.quadraticCurveTo(0.78 * W, 0.84 * H, 0.88 * W, 0.5 * H);
    g.stroke();
    g.lineWidth = 3;
    g.strokeStyle = 'rgba(80,40,40,0.45)';
    g.beginPath();
    g.moveTo(0.24 * W, 0.12 * H);
    g.quadraticCurveTo(0.55 * W, -0.02 * H, 0.82 * W, 0.1 * H);
    g.stroke();
  });
}

/** A closed eye: the lash line curved down, as a drawn lid (a blink swaps it in). */
function closedEyeTexture(outerRight, lashes = 1) {
  return canvasTexture(256, 200, (g, W, H) => {
    if (!outerRight) {
      g.translate(W, 0);
      g.scale(-1, 1);
    }
    g.strokeStyle = '#21120f';
    g.lineCap = 'round';
    g.lineWidth = 7 + 4 * lashes;
    g.beginPath();
    g.moveTo(0.12 * W, 0.5 * H);
    g.quadraticCurveTo(0.5 * W, 0.78 * H, 0.9 * W, 0.5 * H);
    g.stroke();
    g.globalAlpha = lashes;
    g.lineWidth = 4;
    for (const [x, y, dx, dy] of [[0.78, 0.6, 0.06, 0.08], [0.66, 0.66, 0.03, 0.1]]) {
      g.beginPath();
      g.moveTo(x * W, y * H);
      g.lineTo((x + dx) * W, (y + dy) * H);
      g.stroke();
    }
  });
}

function browTexture(colour) {
  return canvasTexture(128, 32, (g, W, H) => {
    g.fillStyle = colour;
    g.beginPath();
    g.moveTo(0.04 * W, 0.75 * H);
    g.quadraticCurveTo(0.45 * W, 0.05 * H, 0.97 * W, 0.5 * H);
    g.quadraticCurveTo(0.5 * W, 0.3 * H, 0.06 * W, 0.98 * H);
    g.fill();
  });
}

function mouthTexture() {
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
    g.quadraticCurveTo(0.88 * W, 0.3 * H, 0.7 * W, 0.3 * H);
    g.lineTo(0.3 * W, 0.3 * H);
    g.quadraticCurveTo(0.12 * W, 0.3 * H, 0.08 * W, 0);
    g.fill();
    g.fillStyle = '#d3707c';
    g.beginPath();
    g.ellipse(0.5 * W, 1.02 * H, 0.34 * W, 0.36 * H, 0, 0, Math.PI * 2);
    g.fill();
    g.strokeStyle = '#3b1016';
    g.lineWidth = 7;
    g.strokeRect(0, 0, W, H);
  });
}

function strokeTexture(colour, w = 128, h = 16, width = 0.55) {
  return canvasTexture(w, h, (g, W, H) => {
    g.fillStyle = colour;
    g.beginPath();
    g.moveTo(0, H / 2);
    g.quadraticCurveTo(W / 2, H / 2 - H * width, W, H / 2);
    g.quadraticCurveTo(W / 2, H / 2 + H * width, 0, H / 2);
    g.fill();
  });
}

/**
 * The stage's background: a soft gradient with out-of-focus shapes (a DOM layer, as the page
 * draws backgrounds). The shapes are radial gradients fading to transparent, not blurred
 * elements: a CSS blur filter is recomputed by a software compositor on every frame.
 */
export function softBackground(stage, colours = PEOPLE.maya.bg) {
  const bg = stage.querySelector('#bg');
  const spots = [
    [12, 18, 30, '#ffffff', 0.6],
    [82, 26, 24, '#fde68a', 0.5],
    [70, 88, 36, colours[2], 0.4],
    [8, 80, 28, '#f0abfc', 0.35],
  ].map(([x, y, r, c, o]) => `radial-gradient(circle at ${x}% ${y}%, ${c}${Math.round(o * 255).toString(16).padStart(2, '0')} 0%, ${c}00 ${r}%)`);
  bg.innerHTML = '';
  bg.style.background = [...spots, `radial-gradient(ellipse 90% 80% at 50% 30%, ${colours[0]} 0%, ${colours[1]} 55%, ${colours[2]} 130%)`].join(', ');
}

// ── The persona ───────────────────────────────────────────────────────────────────────────
export async function buildToon({ scene, camera, stage, persona, outline: hasOutline = true }) {
  const started = performance.now();
  const p = PEOPLE[persona] ?? PEOPLE.maya;
  const female = p.build === 'f';
  const long = p.hairStyle === 'long';
  const skin = lin(p.skin);
  const hair = lin(p.hair);
  const shirt = lin(p.shirt);
  const white = lin('#f5f5f7');
  const blush = lin('#f08080');
  const skinShade = skin.clone().multiply(new Color(0.86, 0.66, 0.68));
  // Blush is lighter on darker skin, where the same pink would read as a red patch.
  const blushAmount = 0.35 * Math.min(1, 0.3 + 1.5 * (0.2126 * skin.r + 0.7152 * skin.g + 0.0722 * skin.b));

  softBackground(stage, p.bg);

  scene.add(new AmbientLight(0xffffff, 1.1));
  const key = new DirectionalLight(0xffffff, 2.3);
  key.position.set(-1.2, 1.6, 2.2);
  scene.add(key);

  const avatar = new Group();
  scene.add(avatar);
  const HC = new Vector3(0, 1.64, 0); // head centre
  const head = new Group();
  head.position.copy(HC);
  head.scale.setScalar(1.06);
  avatar.add(head);

  // Head: an ellipsoid with a narrow jaw and a small chin; normals are the ellipsoid's, so the
  // toon terminator stays a clean curve over the face (no nose or cheek shadows).
  const R = [0.087, 0.1, 0.088];
  const mouthY = -0.072;
  const eyeY = -0.012;
  const eyeX = 0.033;
  const headPoint = (u, v, open) => {
    const phi = (u - 0.5) * Math.PI * 2; // 0 = front
    const th = v * Math.PI;
    const n = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
    let x = R[0] * n[0];
    let y = R[1] * n[1];
    let z = R[2] * n[2];
    const low = smooth(-n[1] * 1.25);
    const front = Math.max(0, n[2]);
    x *= 1 - 0.24 * low;
    y -= 0.011 * smooth(-n[1] * 1.6) * front ** 2;
    z -= 0.012 * low * (1 - front);
    const dn = Math.hypot(x / 0.007, (y + 0.042) / 0.012);
    if (n[2] > 0) z += 0.005 * Math.exp(-dn * dn);
    const jaw = smooth((mouthY - 0.004 - y) / 0.02) * smooth(n[2] / 0.4);
    y -= open * 0.009 * jaw;
    z -= open * 0.002 * jaw;
    const bl = Math.exp(-(((Math.abs(x) - 0.045) / 0.016) ** 2) - ((y + 0.04) / 0.011) ** 2) * front;
    // The fringe's shadow on the forehead, drawn into the colour (no shadow maps).
    const fringeShade = smooth((y - 0.028) / 0.02) * front;
    return { p: [x, y, z], n: [n[0] / R[0], n[1] / R[1], n[2] / R[2]], c: mixC(mixC(skin, blush, blushAmount * bl), skinShade, 0.7 * fringeShade) };
  };
  const headGeo = new Geo();
  const HEAD_GRID = OPTIONS.lod === 'low' ? [32, 40] : [44, 56];
  headGeo.grid(...HEAD_GRID, (u, v) => headPoint(u, v, 0));
  const openGeo = new Geo();
  openGeo.grid(...HEAD_GRID, (u, v) => headPoint(u, v, 1));

  // Materials: MToon per part (vertex colours; shade = shadeColorFactor × vertex colour) and
  // MToon's outline pass (inverted hull, world-space width).
  const toon = (shadeColour, { outline = 0.0018, outlineColour = '#3a2228', rim = 0.15, map = null } = {}) => {
    const params = {
      color: new Color(1, 1, 1),
      ...(map ? { map, shadeMultiplyTexture: map } : {}),
      shadeColorFactor: new Color(...shadeColour),
      shadingShiftFactor: -0.05,
      shadingToonyFactor: 0.88,
      giEqualizationFactor: 0.9,
      parametricRimColorFactor: new Color(rim, rim * 0.9, rim * 0.95),
      parametricRimFresnelPowerFactor: 4,
      parametricRimLiftFactor: 0,
      rimLightingMixFactor: 1,
      ignoreVertexColor: false,
      vertexColors: true,
      outlineWidthMode: 'worldCoordinates',
      outlineWidthFactor: outline,
      outlineColorFactor: new Color(outlineColour),
      outlineLightingMixFactor: 0.5,
    };
    const main = OPTIONS.mat === 'basic' ? new MeshBasicMaterial({ vertexColors: true, map }) : OPTIONS.mat === 'lite' ? liteToon(shadeColour, rim, map, OPTIONS.lines === 'ink' ? outlineColour : null) : new MToonMaterial(params);
    const line = OPTIONS.hull === 'basic' ? basicHull(outline, outlineColour) : new MToonMaterial({ ...params, isOutline: true, side: BackSide });
    // three r187 declares vColor as a vec4; MToon (three-vrm 3.5) multiplies an rgb by it.
    for (const m of [main, line].filter((x) => x.isShaderMaterial)) {
      const own = m.onBeforeCompile.bind(m);
      m.onBeforeCompile = (shader, renderer) => {
        own(shader, renderer);
        shader.fragmentShader = shader.fragmentShader.replaceAll('*= vColor;', '*= vColor.rgb;');
      };
    }
    return [main, line];
  };
  const withOutline = (geo, [main, line], parent, part) => {
    const g = geo.geometry();
    const a = new Mesh(g, main);
    if (!hasOutline || (OPTIONS.lines !== 'all' && !OPTIONS.lines.split('+').includes(part))) {
      parent.add(a);
      return [a];
    }
    const b = new Mesh(g, line);
    parent.add(a, b);
    return [a, b];
  };
  const skinMats = toon([0.86, 0.66, 0.68], { outlineColour: '#5a2e2a' });
  const hairMats = toon([0.55, 0.5, 0.68], { outlineColour: '#1a0e0c', outline: 0.0012, rim: 0.06 });
  const clothMats = toon([0.6, 0.6, 0.78], { outlineColour: '#1e1b3a', outline: 0.002 });

  const headMeshes = withOutline(headGeo, skinMats, head, 'head');
  const headG = headMeshes[0].geometry;
  headG.morphAttributes.position = [new BufferAttribute(new Float32Array(openGeo.pos.map((x, i) => x - headGeo.pos[i])), 3)];
  headG.morphTargetsRelative = true;
  for (const m of headMeshes) m.updateMorphTargets();

  // Decals on the face: a grid laid on the head's surface (cast from the front), drawn after it.
  const rest = new Mesh(headGeo.geometry());
  rest.updateMatrixWorld();
  const ray = new Raycaster();
  const surfaceZ = (x, y) => {
    ray.set(new Vector3(x, y, 0.5), new Vector3(0, 0, -1));
    const hit = ray.intersectObject(rest, false)[0];
    return hit ? hit.point.z : 0;
  };
  const decal = (shape, map, { cols = 8, rows = 6, lift = 0.0007, morph = null, order = 1 } = {}) => {
    const build = (s) => {
      const pos = [];
      const uv = [];
      for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) {
        const [x, y] = s(c / cols, r / rows);
        pos.push(x, y, surfaceZ(x, y) + lift);
        uv.push(c / cols, 1 - r / rows);
      }
      return pos;
    };
    const pos = build(shape);
    const idx = [];
    const w = cols + 1;
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const a = r * w + c;
      idx.push(a, a + w, a + 1, a + 1, a + w, a + w + 1);
    }
    const uv = [];
    for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) uv.push(c / cols, 1 - r / rows);
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(new Float32Array(pos), 3));
    g.setAttribute('uv', new BufferAttribute(new Float32Array(uv), 2));
    g.setIndex(idx);
    if (morph) {
      const to = build(morph);
      g.morphAttributes.position = [new BufferAttribute(new Float32Array(to.map((x, i) => x - pos[i])), 3)];
      g.morphTargetsRelative = true;
    }
    const m = new Mesh(g, new MeshBasicMaterial({ map, transparent: true, depthWrite: false, polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4 }));
    m.renderOrder = order;
    if (morph) m.updateMorphTargets();
    head.add(m);
    return m;
  };
  const rect = (cx, cy, hw, hh) => (u, v) => [cx - hw + 2 * hw * u, cy + hh - 2 * hh * v];
  const irisHex = p.eyes;
  const eyes = [];
  const browR = browTexture(`#${mixC(hair, new Color(0, 0, 0), 0.2).getHexString()}`);
  const browL = browR.clone();
  browL.wrapS = RepeatWrapping;
  browL.repeat.x = -1;
  for (const s of [-1, 1]) {
    const open = eyeTexture(irisHex, s > 0, female ? 1 : 0);
    const closed = closedEyeTexture(s > 0, female ? 1 : 0);
    eyes.push({ mesh: decal(rect(s * eyeX, eyeY, 0.025, female ? 0.021 : 0.019), open), open, closed });
    decal((u, v) => {
      const [x, y] = rect(s * (eyeX + 0.002), eyeY + 0.034, 0.018, female ? 0.0045 : 0.0062)(u, v);
      return [x, y + 0.004 * Math.sin(u * Math.PI) - 0.002 * (s > 0 ? u : 1 - u)];
    }, s > 0 ? browR : browL, { cols: 8, rows: 2 });
  }
  // The mouth: closed it is a line; "aa" opens it downwards onto teeth, interior and tongue.
  const mouthW = 0.014;
  const mouthShape = (open) => (u, v) => {
    const s = 2 * u - 1;
    const top = mouthY + 0.0012 * s * s;
    const depth = 0.0008 + open * 0.016 * Math.sqrt(Math.max(0, 1 - s * s)) ** 0.9;
    return [s * mouthW * (1 + 0.12 * open), top - depth * v - open * 0.0015 * v];
  };
  const mouth = decal(mouthShape(0), mouthTexture(), { cols: 12, rows: 6, morph: mouthShape(1), order: 2 });
  decal((u, v) => [(2 * u - 1) * mouthW * 1.05, mouthY + 0.0012 * (2 * u - 1) ** 2 + 0.0012 - 0.0024 * v], strokeTexture(`#${mixC(lin(p.lip), new Color(0, 0, 0), 0.35).getHexString()}`), { cols: 12, rows: 2, order: 3 });
  decal(rect(0.003, -0.046, 0.0035, 0.0022), strokeTexture('rgba(150,80,70,0.55)', 32, 16, 0.45), { cols: 2, rows: 2 });

  // Hair: a cap over the skull, then tapered strands for the fringe, the sides and the back.
  const hairC = new Vector3(0, 0.006, -0.004);
  const HR = [0.092, 0.108, 0.098];
  const band = (y) => Math.exp(-(((y - 0.055) / 0.012) ** 2));
  const hairColour = (y) => mixC(hair, lin('#ffe8d0'), 0.3 * band(y));
  const hairGeo = new Geo();
  const sphere = (th, phi, k = 1) => [hairC.x + HR[0] * k * Math.sin(th) * Math.sin(phi), hairC.y + HR[1] * k * Math.cos(th), hairC.z + HR[2] * k * Math.sin(th) * Math.cos(phi)];
  hairGeo.grid(24, 48, (u, v) => {
    const phi = (u - 0.5) * Math.PI * 2;
    const backness = (1 - Math.cos(phi)) / 2;
    const limit = 0.98 + backness * 1.25;
    const th = v * limit;
    const p3 = sphere(th, phi);
    return { p: p3, n: [p3[0] - hairC.x, p3[1] - hairC.y, p3[2] - hairC.z], c: hairColour(p3[1]) };
  });
  const outward = (pt) => new Vector3(pt[0] - hairC.x, pt[1] - hairC.y, pt[2] - hairC.z);
  // Fringe: strands from the crown over the forehead, longer at the sides, a parting off-centre.
  const fringe = [-1.05, -0.8, -0.56, -0.34, -0.14, 0.2, 0.4, 0.62, 0.85, 1.08];
  fringe.forEach((phi0, i) => {
    const end = 1.28 + (i % 2 ? -0.07 : 0.04) + Math.abs(phi0) * 0.12;
    const sweep = phi0 < 0.05 ? -0.22 : 0.22;
    strand(hairGeo, (t) => {
      const th = 0.3 + t * (end - 0.22);
      const phi = phi0 + sweep * t * t;
      const puff = 1.0 + 0.065 * smooth(t / 0.3) - 0.02 * smooth((t - 0.6) / 0.4);
      const q = sphere(th, phi, puff);
      // Past the hairline the tip hangs down and curls in a little.
      const past = smooth((t - 0.7) / 0.3);
      return [q[0], q[1] - past * 0.008, q[2] - past * 0.006];
    }, { width: 0.019 - Math.abs(phi0) * 0.002, colour: (t) => hairColour(sphere(0.08 + t * end, phi0)[1]), out: outward });
  });
  // Side locks in front of the ears, down to the jaw.
  for (const s of [-1, 1]) for (const [phi0, len, w] of long ? [[1.22, 0.2, 0.017], [1.42, 0.24, 0.02]] : [[1.25, 0.035, 0.016], [1.5, 0.03, 0.02]]) {
    strand(hairGeo, (t) => {
      const arc = Math.min(1, t / 0.45);
      const q = sphere(0.25 + arc * 1.3, s * phi0, 1.0 + (long ? 0.11 : 0.05) * smooth(t / 0.25));
      const fall = Math.max(0, t - 0.45) / 0.55;
      return [q[0] + s * fall * 0.012, q[1] - fall * len, q[2] + fall * 0.012];
    }, { width: w, colour: (t) => hairColour(sphere(0.25 + Math.min(1, t / 0.45) * 1.3, phi0)[1]), out: (pt) => new Vector3(s, 0, 0.3).add(outward(pt).multiplyScalar(4)), rows: 16 });
  }
  // Back: layered strands round the back of the head; long hair falls behind the shoulders.
  const backCount = long ? 20 : 16;
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
  if (p.hairStyle === 'bun') {
    // A bun high at the back: a ball of hair with a few strands wrapped round it.
    const bc = [0, HR[1] * 0.95, -HR[2] * 0.45];
    hairGeo.grid(12, 20, (u, v) => {
      const phi = u * Math.PI * 2;
      const th = v * Math.PI;
      const n = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
      const q = [bc[0] + 0.042 * n[0], bc[1] + 0.036 * n[1], bc[2] + 0.04 * n[2]];
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
    // An under-layer behind the strands, darker, so gaps between strands read as depth.
    hairGeo.grid(10, 24, (u, v) => {
      const phi = Math.PI * (0.42 + u * 1.16);
      const x = Math.sin(phi) * (0.094 + 0.05 * v);
      const y = -0.01 - v * 0.3;
      const z = Math.cos(phi) * (0.085 + 0.01 * v) - 0.015 - 0.1 * v * Math.abs(Math.sin(phi));
      return { p: [x, y, z], n: [Math.sin(phi), 0, Math.cos(phi)], c: mixC(hair, new Color(0, 0, 0), 0.35) };
    });
  }
  withOutline(hairGeo, hairMats, head, 'hair');

  // Body (world space): neck, a torso with rounded shoulders, arms. The top's pattern (a V-neck
  // over a lighter shirt, trims, seams, fold lines) is a texture painted here texel by texel
  // from the same surface function, so its edges are crisp at any mesh density.
  const sh = female ? 0.165 : 0.195;
  const latheAt = (profile, cz = 0) => (u, v) => {
    const f = v * (profile.length - 1);
    const i = Math.min(profile.length - 2, Math.floor(f));
    const t = smooth(f - i) * 0.5 + (f - i) * 0.5;
    const [y0, rx0, rz0] = profile[i];
    const [y1, rx1, rz1] = profile[i + 1];
    const y = y0 + (y1 - y0) * t;
    const rx = rx0 + (rx1 - rx0) * t;
    const rz = rz0 + (rz1 - rz0) * t;
    const phi = (u - 0.5) * Math.PI * 2;
    const dy = (rx1 - rx0) / Math.max(1e-4, y1 - y0);
    return { p: [rx * Math.sin(phi), y, cz + rz * Math.cos(phi)], n: [Math.sin(phi) / rx, -dy * 0.02, Math.cos(phi) / rz] };
  };
  const neckGeo = new Geo();
  const nk = female ? 1 : 1.7;
  const neckAt = latheAt([[1.45, 0.034 * nk, 0.032 * nk], [1.52, 0.031 * nk, 0.03 * nk], [1.6, 0.03 * nk, 0.029 * nk]], -0.012);
  neckGeo.grid(8, 24, (u, v) => ({ ...neckAt(u, v), c: mixC(skin, skinShade, 0.25 + 0.75 * smooth((v - 0.2) / 0.5)) }));
  withOutline(neckGeo, skinMats, avatar, 'neck');
  const torsoAt = latheAt([[1.0, 0.125, 0.09], [1.18, 0.12, 0.09], [1.3, 0.13, 0.1], [1.37, sh * 0.92, 0.105], [1.42, sh, 0.095], [1.452, sh * 0.8, 0.078], [1.468, 0.07, 0.055], [1.476, 0.036, 0.034]]);
  const torsoGeo = new Geo();
  torsoGeo.grid(...(OPTIONS.lod === 'low' ? [20, 40] : [28, 56]), (u, v) => ({ ...torsoAt(u, v), c: lin('#ffffff') }));
  const trim = mixC(shirt, new Color(0, 0, 0), 0.45);
  const shirtTexture = canvasTexture(1024, 512, (g, W, H) => {
    const img = g.createImageData(W, H);
    const rgb = (c) => new Color(c).convertLinearToSRGB().toArray().map((x) => x * 255);
    const [cShirt, cInner, cTrim, cFold] = [rgb(shirt), rgb(mixC(white, shirt, 0.12)), rgb(trim), rgb(mixC(shirt, new Color(0, 0, 0), 0.2))];
    // Each feature blends in over about a texel (1.5 mm), so its edges are antialiased.
    const cover = (d) => smooth(0.5 + d / 0.0015);
    const c = [0, 0, 0];
    const lerp = (to, t) => {
      if (t > 0) for (let k = 0; k < 3; k++) c[k] += (to[k] - c[k]) * t;
    };
    for (let j = 0; j < H; j++) {
      const y = torsoAt(0.5, (j + 0.5) / H).p[1];
      const band = cover(y - (female ? 1.462 : 1.452));
      for (let i = 0; i < W; i++) {
        c[0] = cShirt[0];
        c[1] = cShirt[1];
        c[2] = cShirt[2];
        const u = (i + 0.5) / W;
        // The V, its trim and the folds are on the front only, above the waist.
        if (u > 0.25 && u < 0.75 && y > 1.21) {
          const x = torsoAt(u, (j + 0.5) / H).p[0];
          const edge = female ? (y - 1.36) * 0.42 - Math.abs(x) : -1; // > 0 inside the V
          lerp(cInner, cover(edge));
          lerp(cTrim, cover(0.006 - Math.abs(edge)) * cover(y - 1.355));
          lerp(cFold, cover(0.0025 - Math.abs(Math.abs(x) - (0.118 - (1.36 - y) * 0.15))) * cover(1.36 - y) * cover(y - 1.22));
        }
        lerp(cTrim, band);
        const k = (j * W + i) * 4;
        img.data[k] = c[0];
        img.data[k + 1] = c[1];
        img.data[k + 2] = c[2];
        img.data[k + 3] = 255;
      }
    }
    g.putImageData(img, 0, 0);
  });
  const shirtMats = toon([0.6, 0.6, 0.78], { outlineColour: '#1e1b3a', outline: 0.002, map: shirtTexture });
  withOutline(torsoGeo, shirtMats, avatar, 'torso');
  const armGeo = new Geo();
  for (const s of [-1, 1]) {
    const top = [s * (sh - 0.05), 1.43, -0.005];
    const elbow = [s * (sh + 0.03), 1.15, -0.02];
    strand(armGeo, (t) => [top[0] + (elbow[0] - top[0]) * t, top[1] + (elbow[1] - top[1]) * t, top[2] + (elbow[2] - top[2]) * t], { width: 0.046, thick: 1, colour: () => shirt, out: () => new Vector3(s, 0, 0.3), taper: 0.05, rows: 8, cols: 14 });
  }
  withOutline(armGeo, clothMats, avatar, 'arms');

  // Framing: the product's upper-body camera, from the model's top and head.
  const top = HC.y + hairC.y + HR[1] * 1.1;
  camera.position.set(0, top - 0.16, 1.05);
  camera.lookAt(0, top - 0.2, 0);
  const framing = { top, centre: new Vector3(0, 0, 0) };

  const buildMs = performance.now() - started;
  // Bytes of this persona as a GLB (geometry, morphs, the canvas textures as PNG), and of its
  // textures alone.
  const textures = new Set();
  avatar.traverse((o) => {
    if (o.isMesh && o.material.map) textures.add(o.material.map.image);
  });
  const textureBytes = [...textures].reduce((sum, c) => sum + Math.round((c.toDataURL('image/png').length - 22) * 0.75), 0);
  const glb = await new GLTFExporter().parseAsync(avatar, { binary: true });
  let vertices = 0;
  let triangles = 0;
  avatar.traverse((o) => {
    if (o.isMesh && !o.material.isOutline) {
      vertices += o.geometry.attributes.position.count;
      triangles += o.geometry.index.count / 3;
    }
  });
  return {
    bytes: glb.byteLength,
    extra: { vertices, triangles, textureBytes, buildMs: Math.round(buildMs) },
    framing,
    setMouth(open) {
      for (const m of [...headMeshes, mouth]) m.morphTargetInfluences[0] = open;
    },
    setBlink(amount) {
      for (const e of eyes) e.mesh.material.map = amount > 0.5 ? e.closed : e.open;
    },
  };
}
