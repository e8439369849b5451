// The catalogue's 3D environments (issue 28: "the environment behind it with depth"), made here as
// small glTF scenes: coloured parts (boxes, cylinders, low-poly spheres, discs, rings, quads), one
// material per colour, flat normals for hard parts and smooth ones for round ones. Depth is painted
// in: what stands far away is mixed toward the sky's colour (aerial perspective), so no fog or
// blur has to be computed on the page. Also each scene's thumbnail, drawn from the same triangles.

/** A colour (#rrggbb) mixed toward another by k (0…1). */
const mix = (a, b, k) => {
  const p = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const [x, y] = [p(a), p(b)];
  return `#${x.map((v, i) => Math.round(v + (y[i] - v) * k).toString(16).padStart(2, '0')).join('')}`;
};
const sub = (a, b) => a.map((v, i) => v - b[i]);
const dot = (a, b) => a.reduce((n, v, i) => n + v * b[i], 0);
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a) => a.map((v) => v / (Math.hypot(...a) || 1));

/** A scene under construction: triangles by colour, each with its vertices' normals. */
function sceneBuilder({ sky, haze = 0.62, hazeFrom = 6, hazeTo = 32 }) {
  const parts = new Map();
  /** Round parts as the thumbnail draws them (a shaded ellipse each, not 80 triangles). */
  const blobs = [];
  let inBlob = false;
  /** Aerial perspective: the farther (−z), the nearer the sky's colour. */
  const hazed = (colour, z) => mix(colour, sky, haze * Math.min(1, Math.max(0, (-z - hazeFrom) / (hazeTo - hazeFrom))));
  const tri = (colour, a, b, c, na, nb, nc) => {
    if (!parts.has(colour)) parts.set(colour, []);
    const n = na ?? unit(cross(sub(b, a), sub(c, a)));
    parts.get(colour).push(Object.assign([a, b, c, n, nb ?? n, nc ?? n], inBlob ? { blob: true } : {}));
  };
  const quad = (colour, a, b, c, d) => {
    tri(colour, a, b, c);
    tri(colour, a, c, d);
  };
  const api = {
    /** A box standing on y (its bottom), centred on x and z. */
    box(colour, [x, y, z], [w, h, d], { hazeZ = z } = {}) {
      const c = hazed(colour, hazeZ);
      const [x0, x1, y0, y1, z0, z1] = [x - w / 2, x + w / 2, y, y + h, z - d / 2, z + d / 2];
      quad(c, [x0, y1, z1], [x1, y1, z1], [x1, y1, z0], [x0, y1, z0]);
      quad(c, [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]);
      quad(c, [x1, y0, z0], [x0, y0, z0], [x0, y1, z0], [x1, y1, z0]);
      quad(c, [x1, y0, z1], [x1, y0, z0], [x1, y1, z0], [x1, y1, z1]);
      quad(c, [x0, y0, z0], [x0, y0, z1], [x0, y1, z1], [x0, y1, z0]);
      return api;
    },
    /** A quad facing +z (a window, a picture), its centre at [x, y, z]. */
    panel(colour, [x, y, z], [w, h]) {
      quad(hazed(colour, z), [x - w / 2, y - h / 2, z], [x + w / 2, y - h / 2, z], [x + w / 2, y + h / 2, z], [x - w / 2, y + h / 2, z]);
      return api;
    },
    /** An upright cylinder (a trunk, a post) from y to y + h; smooth sides. */
    cylinder(colour, [x, y, z], r, h, { segments = 10, top = r } = {}) {
      const c = hazed(colour, z);
      for (let i = 0; i < segments; i++) {
        const [a0, a1] = [i, i + 1].map((k) => (k / segments) * Math.PI * 2);
        const p = (a, rr, yy) => [x + rr * Math.cos(a), yy, z + rr * Math.sin(a)];
        const n = (a) => [Math.cos(a), 0, Math.sin(a)];
        tri(c, p(a0, r, y), p(a1, top, y + h), p(a1, r, y), n(a0), n(a1), n(a1));
        tri(c, p(a0, r, y), p(a0, top, y + h), p(a1, top, y + h), n(a0), n(a0), n(a1));
        tri(c, [x, y + h, z], p(a1, top, y + h), p(a0, top, y + h), [0, 1, 0], [0, 1, 0], [0, 1, 0]);
      }
      return api;
    },
    /** A low-poly sphere (an icosahedron split once), squashed by [sx, sy, sz]; smooth. */
    sphere(colour, [x, y, z], r, [sx, sy, sz] = [1, 1, 1]) {
      const c = hazed(colour, z);
      blobs.push({ colour: c, at: [x, y, z], r, scale: [sx, sy, sz] });
      inBlob = true;
      for (const [a, b, d] of icosphere()) {
        const at = (v) => [x + v[0] * r * sx, y + v[1] * r * sy, z + v[2] * r * sz];
        tri(c, at(a), at(b), at(d), unit([a[0] / sx, a[1] / sy, a[2] / sz]), unit([b[0] / sx, b[1] / sy, b[2] / sz]), unit([d[0] / sx, d[1] / sy, d[2] / sz]));
      }
      inBlob = false;
      return api;
    },
    /** A flat ring (or disc: inner 0) lying at height y. */
    ring(colour, [x, y, z], inner, outer, { segments = 48 } = {}) {
      const c = hazed(colour, z);
      for (let i = 0; i < segments; i++) {
        const [a0, a1] = [i, i + 1].map((k) => (k / segments) * Math.PI * 2);
        const p = (a, rr) => [x + rr * Math.cos(a), y, z + rr * Math.sin(a)];
        // Wound to face up.
        if (inner > 0) quad(c, p(a0, inner), p(a1, inner), p(a1, outer), p(a0, outer));
        else tri(c, [x, y, z], p(a1, outer), p(a0, outer));
      }
      return api;
    },
    parts,
    blobs,
  };
  return api;
}

let ico = null;
/** The unit icosahedron split once (80 faces), outward winding. */
function icosphere() {
  if (ico) return ico;
  const t = (1 + Math.sqrt(5)) / 2;
  const v = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]].map(unit);
  const f = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]];
  const mid = (a, b) => unit(a.map((x, i) => (x + b[i]) / 2));
  ico = f.flatMap(([a, b, c]) => {
    const [p, q, r] = [v[a], v[b], v[c]];
    const [ab, bc, ca] = [mid(p, q), mid(q, r), mid(r, p)];
    return [[p, ab, ca], [q, bc, ab], [r, ca, bc], [ab, bc, ca]];
  });
  return ico;
}

/** A tree: a trunk and a crown of three overlapping spheres in two greens. */
function tree(s, [x, z], size = 1, greens = ['#6fa45c', '#5a914c']) {
  s.cylinder('#7b5b3e', [x, 0, z], 0.13 * size, 1.5 * size, { segments: 8, top: 0.09 * size });
  s.sphere(greens[0], [x, 2.0 * size, z], 0.95 * size, [1, 0.85, 1]);
  s.sphere(greens[1], [x - 0.5 * size, 1.75 * size, z + 0.25 * size], 0.65 * size);
  s.sphere(greens[0], [x + 0.55 * size, 1.8 * size, z + 0.1 * size], 0.6 * size);
}

/** A façade: a pastel box with a darker roof band and rows of windows facing the square. */
function building(s, [x, z], [w, h, d], wall) {
  s.box(wall, [x, 0, z], [w, h, d]);
  s.box(mix(wall, '#5b4636', 0.45), [x, h, z], [w + 0.3, 0.35, d + 0.3], { hazeZ: z });
  const rows = Math.max(1, Math.floor((h - 1.4) / 1.6));
  const cols = Math.max(1, Math.floor(w / 1.5));
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) s.panel('#5c7088', [x - w / 2 + (c + 0.5) * (w / cols), 1.6 + r * 1.6, z + d / 2 + 0.01], [0.7, 0.95]);
  s.panel(mix(wall, '#3b2b20', 0.55), [x, 0.75, z + d / 2 + 0.01], [Math.min(1.4, w / 3), 1.5]);
}

/** A bench: a seat and back on four legs, along x. */
function bench(s, [x, z]) {
  for (const dx of [-0.7, 0.7]) for (const dz of [-0.15, 0.15]) s.box('#4b5563', [x + dx, 0, z + dz], [0.06, 0.42, 0.06]);
  s.box('#a0714b', [x, 0.42, z], [1.7, 0.07, 0.45]);
  s.box('#a0714b', [x, 0.55, z - 0.22], [1.7, 0.4, 0.06]);
}

/** A street lamp: a post and a lantern. */
function lamp(s, [x, z]) {
  s.cylinder('#374151', [x, 0, z], 0.06, 3, { segments: 8 });
  s.sphere('#fdf2c8', [x, 3.15, z], 0.2);
}

export const SCENES = [
  {
    id: 'plaza',
    name: 'Plaza',
    sky: ['#cfe6f7', '#f3f7fb'],
    build(horizon) {
      const s = sceneBuilder({ sky: horizon });
      // The square's paving, a ring of darker stones around where the person stands, lawns.
      s.ring('#dccfb8', [0, 0, -8], 0, 30);
      s.ring('#cbbb9f', [0, 0.004, 0], 1.4, 1.75);
      s.ring('#d5c6aa', [0, 0.004, 0], 0, 1.4);
      s.box('#9cc27a', [-6.5, 0, -7], [5, 0.03, 6]);
      s.box('#9cc27a', [7, 0, -8], [5, 0.03, 6]);
      // Trees and lamps along the lawns, benches facing the square.
      tree(s, [-4.6, -5.2], 1.1);
      tree(s, [-8, -9], 1.3, ['#79ad63', '#5f9750']);
      tree(s, [5.2, -6.5], 1.2, ['#79ad63', '#5f9750']);
      tree(s, [8.5, -10.5], 1.35);
      tree(s, [-2.2, -13], 1.25);
      tree(s, [2.8, -14], 1.1, ['#79ad63', '#5f9750']);
      bench(s, [-4.4, -6.2]);
      bench(s, [4.6, -7.4]);
      lamp(s, [-5.6, -8.5]);
      lamp(s, [6.2, -11]);
      // The square's houses, far enough to take the sky's colour.
      building(s, [-15, -27], [6.5, 7, 4], '#f1d4b3');
      building(s, [-8.2, -29], [6.5, 9, 4], '#e9c1a6');
      building(s, [-1.5, -30], [6.5, 6.5, 4], '#f3e5c3');
      building(s, [5.2, -29], [6.5, 8, 4], '#cfe1e9');
      building(s, [12, -27.5], [6.5, 6, 4], '#dccbe7');
      return s;
    },
  },
  {
    id: 'gallery',
    name: 'Gallery',
    sky: ['#efe9e1', '#f8f5f0'],
    build(horizon) {
      const s = sceneBuilder({ sky: horizon, haze: 0.25, hazeFrom: 4, hazeTo: 12 });
      // A warm wooden floor in boards, a back wall and a side wall, pictures in frames, a bench and plants.
      for (let i = -6; i < 6; i++) s.box(i % 2 ? '#b98b5e' : '#b08257', [i + 0.5, -0.05, -1], [0.98, 0.05, 14]);
      s.box('#f1ece4', [0, 0, -6], [12, 4.2, 0.2]);
      s.box('#e8e1d6', [-6, 0, -1], [0.2, 4.2, 10]);
      s.box('#d9cfc0', [0, 0, -5.88], [12, 0.18, 0.05]);
      for (const [x, w, h, colours] of [
        [-3.4, 1.9, 1.3, ['#3b5b7a', '#e0b45a']],
        [3.3, 1.5, 1.8, ['#7a3b48', '#f0d9a8']],
        [-7.2, 1.3, 1.6, ['#2f5d50', '#c9d8b6']],
        [7, 1.8, 1.2, ['#4b3b7a', '#d8c9e8']],
      ]) {
        s.panel('#2b2522', [x, 2.05, -5.88], [w + 0.16, h + 0.16]);
        s.panel(colours[1], [x, 2.05, -5.87], [w, h]);
        s.panel(colours[0], [x - w * 0.12, 1.95, -5.86], [w * 0.55, h * 0.6]);
      }
      bench(s, [-3.4, -4.6]);
      for (const [x, z] of [[-4.6, -5.2], [4.8, -5.1]]) {
        s.cylinder('#d8d2c8', [x, 0, z], 0.28, 0.55, { segments: 10, top: 0.33 });
        s.sphere('#5f9750', [x, 1.0, z], 0.5, [0.9, 1.2, 0.9]);
      }
      return s;
    },
  },
];

/**
 * A scene's parts as a binary glTF: one unlit primitive (KHR_materials_unlit) whose vertex colours
 * hold each part's colour with its light baked in (a key light from the upper left, front). The
 * page draws it in one call with the cheapest shader: a lit material on a scene that fills the
 * frame cost a software GPU a third of the full body's frame rate (46 → 26 fps, bench render).
 */
export function sceneGlb(name, parts) {
  const buffers = [];
  let offset = 0;
  const bufferViews = [];
  const accessors = [];
  const add = (data, target) => {
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    bufferViews.push({ buffer: 0, byteOffset: offset, byteLength: buf.length, target });
    buffers.push(buf);
    offset += buf.length;
    return bufferViews.length - 1;
  };
  const light = unit([-0.5, 1, 0.8]);
  const linear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  // Vertices rounded to the millimetre: smaller, the same bytes every run; one with the same place
  // and colour is stored once.
  const key = new Map();
  const pos = [];
  const col = [];
  const idx = [];
  for (const [colour, tris] of [...parts.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16) / 255);
    for (const [a, b, c, na, nb, nc] of tris) {
      for (const [p, n] of [[a, na], [b, nb], [c, nc]]) {
        const shade = Math.min(1, 0.68 + 0.32 * Math.max(0, dot(unit(n), light)) + 0.04 * Math.max(0, n[1]));
        const rc = rgb.map((v) => Math.round(255 * linear(v * shade)));
        const rp = p.map((x) => Math.round(x * 1000) / 1000);
        const k = `${rp}|${rc}`;
        let i = key.get(k);
        if (i === undefined) {
          i = pos.length / 3;
          key.set(k, i);
          pos.push(...rp);
          col.push(...rc, 255);
        }
        idx.push(i);
      }
    }
  }
  const min = [0, 1, 2].map((k) => Math.min(...pos.filter((_, i) => i % 3 === k)));
  const max = [0, 1, 2].map((k) => Math.max(...pos.filter((_, i) => i % 3 === k)));
  accessors.push({ bufferView: add(new Float32Array(pos), 34962), componentType: 5126, count: pos.length / 3, type: 'VEC3', min, max });
  accessors.push({ bufferView: add(new Uint8Array(col), 34962), componentType: 5121, normalized: true, count: col.length / 4, type: 'VEC4' });
  const wide = pos.length / 3 > 65535;
  const ind = wide ? new Uint32Array(idx) : new Uint16Array(idx.length + (idx.length % 2));
  if (!wide) ind.set(idx);
  accessors.push({ bufferView: add(ind, 34963), componentType: wide ? 5125 : 5123, count: idx.length, type: 'SCALAR' });
  const materials = [{ name: 'baked', pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1], metallicFactor: 0, roughnessFactor: 1 }, extensions: { KHR_materials_unlit: {} } }];
  const primitives = [{ attributes: { POSITION: 0, COLOR_0: 1 }, indices: 2, material: 0 }];
  const bin = Buffer.concat(buffers);
  const pad = (buf, fill = 0) => Buffer.concat([buf, Buffer.alloc((4 - (buf.length % 4)) % 4, fill)]);
  const json = {
    asset: { version: '2.0', generator: 'persona-studio make-catalog' },
    extensionsUsed: ['KHR_materials_unlit'],
    scene: 0,
    scenes: [{ name, nodes: [0] }],
    nodes: [{ mesh: 0, name }],
    meshes: [{ name, primitives }],
    materials,
    buffers: [{ byteLength: pad(bin).length }],
    bufferViews,
    accessors,
  };
  const jsonBuf = pad(Buffer.from(JSON.stringify(json)), 0x20);
  const binBuf = pad(bin);
  const header = Buffer.alloc(12);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + jsonBuf.length + 8 + binBuf.length, 8);
  const chunk = (buf, type) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(buf.length, 0);
    h.write(type, 4);
    return Buffer.concat([h, buf]);
  };
  return Buffer.concat([header, chunk(jsonBuf, 'JSON'), chunk(binBuf, 'BIN\0')]);
}

/**
 * A scene's thumbnail (SVG): its triangles seen from about where the full-body camera stands (a
 * wider lens, to show the place), lit by one light, drawn far to near over the sky.
 */
export function sceneThumbnail({ parts, blobs }, { sky, width = 320, height = 180, eye = [0, 1.6, 4.2], target = [0, 1, -2], fovDeg = 60 }) {
  const forward = unit(sub(target, eye));
  const right = unit(cross(forward, [0, 1, 0]));
  const up = cross(right, forward);
  const toCamera = (p) => {
    const d = sub(p, eye);
    return [dot(d, right), dot(d, up), dot(d, forward)];
  };
  const near = 0.1;
  const focal = height / 2 / Math.tan((fovDeg * Math.PI) / 360);
  const project = ([x, y, z]) => [width / 2 + (x * focal) / z, height / 2 - (y * focal) / z];
  const clip = (poly) => {
    const out = [];
    for (let i = 0; i < poly.length; i++) {
      const a = poly[i];
      const b = poly[(i + 1) % poly.length];
      if (a[2] >= near) out.push(a);
      if (a[2] >= near !== b[2] >= near) {
        const t = (near - a[2]) / (b[2] - a[2]);
        out.push(a.map((v, k) => v + (b[k] - v) * t));
      }
    }
    return out;
  };
  const light = unit([0.4, 1, 0.6]);
  const faces = [];
  for (const [colour, tris] of parts) {
    for (const t of tris) {
      if (t.blob) continue;
      const [a, b, c, na, nb, nc] = t;
      const n = unit(na.map((v, i) => v + nb[i] + nc[i]));
      const flat = unit(cross(sub(b, a), sub(c, a)));
      if (dot(flat, sub(eye, a)) <= 0) continue;
      const poly = clip([a, b, c].map(toCamera));
      if (poly.length < 3) continue;
      const shade = 0.62 + 0.38 * Math.max(0, dot(n, light));
      const depth = Math.max(...poly.map((p) => p[2]));
      const points = poly.map(project);
      // Smaller than a pixel at this size: not drawn.
      const area = Math.abs(points.reduce((n, [x0, y0], i) => { const [x1, y1] = points[(i + 1) % points.length]; return n + x0 * y1 - x1 * y0; }, 0)) / 2;
      if (area < 0.6) continue;
      faces.push({ depth, points, fill: mix('#000000', colour, Math.min(1, shade)) });
    }
  }
  for (const { colour, at, r, scale } of blobs) {
    const [cx, cy, cz] = toCamera(at);
    if (cz < near + r) continue;
    const [px, py] = project([cx, cy, cz]);
    const [rx, ry] = [(r * scale[0] * focal) / cz, (r * scale[1] * focal) / cz];
    if (rx < 0.6) continue;
    // Lit from above: the lower part in shade, a lighter cap.
    const shape = (dx, dy, kx, ky, fill) => `<ellipse cx="${Math.round(px + dx)}" cy="${Math.round(py + dy)}" rx="${(rx * kx).toFixed(1)}" ry="${(ry * ky).toFixed(1)}" fill="${fill}"/>`;
    faces.push({ depth: cz, svg: shape(0, 0, 1, 1, mix('#000000', colour, 0.72)) + shape(-rx * 0.12, -ry * 0.15, 0.8, 0.75, colour) });
  }
  faces.sort((p, q) => q.depth - p.depth);
  const polygons = faces.map((f) => f.svg ?? `<polygon points="${f.points.map(([px, py]) => `${Math.round(px)},${Math.round(py)}`).join(' ')}" fill="${f.fill}" stroke="${f.fill}" stroke-width=".5"/>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${sky[0]}"/><stop offset="1" stop-color="${sky[1]}"/></linearGradient></defs><rect width="${width}" height="${height}" fill="url(#sky)"/>${polygons}</svg>`;
}

export { mix as mixColour };
