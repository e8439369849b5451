// node scripts/avatar-bundle.mjs [--top=N]: what the avatar page's JS is, from the built avatar
// page (packages/web/dist after `npm run build`): per kind, the chunks it loads and their gzipped
// size (level 9, as bench/live-render.mjs measures the page); per chunk, its largest sources, each
// chunk's bytes attributed through its sourcemap (a source's share of the gzipped chunk is
// estimated from its share of the raw bytes). No dependency: the sourcemap's mappings are decoded here.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { root } from './lib.mjs';

const dist = path.join(root, 'packages/web/dist');
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice('--top='.length) ?? 8);
const manifestFile = path.join(dist, 'avatar-manifest.json');
if (!fs.existsSync(manifestFile)) {
  console.error(`${manifestFile} is missing: run npm run build first`);
  process.exit(1);
}
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
const gzip = (file) => zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1);

/** The manifest key of the module whose path ends with `tail` (undefined: not a chunk of its own). */
const chunkOf = (tail) => Object.keys(manifest).find((k) => k.endsWith(tail));
/** A chunk and every chunk it imports statically. */
function closure(keys) {
  const seen = new Set();
  const walk = (k) => {
    if (!k || seen.has(k)) return;
    seen.add(k);
    for (const i of manifest[k].imports ?? []) walk(i);
  };
  keys.forEach(walk);
  return [...seen];
}

// What each kind loads after the entry: the stage, then its renderer's chunks (three-avatar.ts
// imports GLTFLoader for a model or an environment, three-vrm for a VRM, toon-persona for a recipe).
const stage = chunkOf('render/stage.ts');
const three = chunkOf('render/three-avatar.ts');
const gltf = chunkOf('loaders/GLTFLoader.js');
const kinds = {
  '2D portrait': [stage, chunkOf('render/portrait-2d.ts')],
  'talking photo': [stage, chunkOf('render/photo-2d.ts')],
  'catalogue upper body (recipe)': [stage, three, chunkOf('render/toon-persona.ts')],
  'catalogue full body (recipe + environment)': [stage, three, chunkOf('render/toon-persona.ts'), gltf],
  'uploaded VRM': [stage, three, gltf, chunkOf('three-vrm.module.js')],
  'uploaded GLB': [stage, three, gltf],
};
console.log('JS per kind (gzip -9, the entry avatar.html included):');
for (const [kind, keys] of Object.entries(kinds)) {
  const files = closure(['avatar.html', ...keys])
    .map((k) => manifest[k].file)
    .filter((f) => f.endsWith('.js'));
  const total = files.reduce((n, f) => n + gzip(f), 0);
  console.log(`  ${kind.padEnd(44)} ${kb(total).padStart(6)} KB  ${files.map((f) => `${path.basename(f)} ${kb(gzip(f))}`).join(', ')}`);
}

const B64 = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]));
/** One mapping segment's fields (base-64 VLQ). */
function segment(text) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const digit = B64.get(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** Bytes of a chunk per source: each generated column range goes to the source mapped at its start (a line without mappings, such as shader text, to the last one). */
function sourcesOf(file) {
  const code = fs.readFileSync(path.join(dist, file), 'utf8');
  const map = JSON.parse(fs.readFileSync(path.join(dist, `${file}.map`), 'utf8'));
  const lines = code.split('\n');
  const bytes = new Map();
  let source = 0;
  let carry = -1;
  map.mappings.split(';').forEach((mapped, li) => {
    const cols = [[0, carry]];
    let col = 0;
    for (const text of mapped.split(',')) {
      if (!text) continue;
      const s = segment(text);
      col += s[0];
      if (s.length > 1) source += s[1];
      cols.push([col, s.length > 1 ? source : -1]);
    }
    const length = (lines[li] ?? '').length + 1;
    cols.forEach(([start, src], i) => {
      const end = i + 1 < cols.length ? cols[i + 1][0] : length;
      if (i === cols.length - 1) carry = src;
      const name = src >= 0 ? map.sources[src].replace(/^.*node_modules\//, '') : '(unmapped)';
      bytes.set(name, (bytes.get(name) ?? 0) + end - start);
    });
  });
  return { raw: code.length, rows: [...bytes].sort((a, b) => b[1] - a[1]) };
}

console.log(`\nLargest sources per chunk (raw KB, ≈ gzipped KB):`);
const files = [...new Set(Object.values(manifest).map((m) => m.file))].filter((f) => f.endsWith('.js') && fs.existsSync(path.join(dist, `${f}.map`)));
for (const file of files.sort((a, b) => gzip(b) - gzip(a))) {
  const gz = gzip(file);
  const { raw, rows } = sourcesOf(file);
  console.log(`  ${path.basename(file)}: ${kb(raw)} KB, ${kb(gz)} KB gzipped`);
  for (const [name, n] of rows.slice(0, top)) console.log(`    ${kb(n).padStart(6)}  ≈ ${kb((n / raw) * gz).padStart(5)}  ${name.replace(/^(\.\.\/)+/, '')}`);
}
