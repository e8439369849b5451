// Writes the default catalogue the avatar creator reads (packages/server/catalog): avatar
// thumbnails (SVG portraits), avatar config files with ParentConfig chains, environments
// (SVG backgrounds, small glTF scenes made here), lighting presets, realtime settings and the
// default client config. Run it again after changing this script; its output is committed.
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib.mjs';

const out = path.join(root, 'packages/server/catalog');
const write = (rel, data) => {
  const file = path.join(out, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof data === 'string' || Buffer.isBuffer(data) ? data : `${JSON.stringify(data, null, 2)}\n`);
};

function portrait({ skin, hair, shirt, bg, hairStyle, fullBody }) {
  const hairPath =
    hairStyle === 'long'
      ? '<path d="M58 70c0-30 18-46 42-46s42 16 42 46v58c-8-6-12-20-12-34v-20H70v20c0 14-4 28-12 34z" fill="HAIR"/>'
      : hairStyle === 'bun'
        ? '<circle cx="100" cy="22" r="14" fill="HAIR"/><path d="M60 72c0-28 18-42 40-42s40 14 40 42c-6-10-20-16-40-16s-34 6-40 16z" fill="HAIR"/>'
        : '<path d="M60 74c0-30 18-44 40-44s40 14 40 44c-4-12-18-20-40-20s-36 8-40 20z" fill="HAIR"/>';
  const body = fullBody
    ? `<rect x="72" y="128" width="56" height="56" rx="12" fill="${shirt}"/><rect x="76" y="182" width="20" height="10" fill="#334155"/><rect x="104" y="182" width="20" height="10" fill="#334155"/>`
    : `<path d="M40 200c4-40 28-62 60-62s56 22 60 62z" fill="${shirt}"/>`;
  const headY = fullBody ? 0.62 : 1;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="200" height="200"><rect width="200" height="200" fill="${bg}"/><g transform="translate(${fullBody ? 38 : 0} ${fullBody ? 10 : 0}) scale(${headY})">${fullBody ? '' : body}<rect x="88" y="112" width="24" height="26" rx="8" fill="${skin}"/><ellipse cx="100" cy="84" rx="34" ry="40" fill="${skin}"/>${hairPath.replace(/HAIR/g, hair)}<circle cx="87" cy="86" r="4" fill="#1f2937"/><circle cx="113" cy="86" r="4" fill="#1f2937"/><path d="M88 104c7 6 17 6 24 0" stroke="#7c2d12" stroke-width="3" fill="none" stroke-linecap="round"/></g>${fullBody ? body : ''}</svg>`;
}

const people = [
  { id: 'maya', name: 'Maya', skin: '#f1c9a5', hair: '#3b2314', shirt: '#4f46e5', bg: '#e0e7ff', hairStyle: 'long' },
  { id: 'leo', name: 'Leo', skin: '#c68642', hair: '#1b1b1b', shirt: '#0f766e', bg: '#ccfbf1', hairStyle: 'short' },
  { id: 'amara', name: 'Amara', skin: '#8d5524', hair: '#111827', shirt: '#b45309', bg: '#fef3c7', hairStyle: 'bun' },
  { id: 'kenji', name: 'Kenji', skin: '#eac086', hair: '#0b0b0b', shirt: '#be123c', bg: '#ffe4e6', hairStyle: 'short' },
  { id: 'sofia', name: 'Sofia', skin: '#ffdbac', hair: '#a16207', shirt: '#7c3aed', bg: '#ede9fe', hairStyle: 'long' },
  { id: 'omar', name: 'Omar', skin: '#a0662f', hair: '#2d1b0e', shirt: '#1d4ed8', bg: '#dbeafe', hairStyle: 'short' },
];

// Base configs: what every avatar of a kind inherits; each avatar's config names its parent.
write('avatar-configs/base.json', {
  Subtitle: { Enabled: true },
  panel: { Enable: false, contentURL: '', BgColor: '#FFFFFF' },
  Scene: { background: 'transparent: false' },
  Avatar: { TTSService: 'Default', TTSVoice: 'en-US-JennyNeural', SpeechSpeed: 0, STTService: 'Default' },
});
write('avatar-configs/base-upper-body.json', {
  ParentConfig: '/catalog/avatar-configs/base.json',
  Camera: { framing: 'upper-body' },
  Lights: { preset: 'studio' },
});
write('avatar-configs/base-full-body.json', {
  ParentConfig: '/catalog/avatar-configs/base.json',
  Camera: { framing: 'full-body' },
  Environment: { shadow: true, position: '0 0 0', rotation: '0 0 0', scale: '1 1 1', 'gltf-model': '/catalog/environments/plaza.glb' },
  NavigationMesh: { enabled: false },
  Lights: { preset: 'daylight' },
});
write('avatar-configs/base-image.json', { ParentConfig: '/catalog/avatar-configs/base.json', Camera: { framing: 'portrait' } });

const list = { image: [], upperBody: [], fullBody: [], video: [] };
for (const p of people) {
  write(`thumbs/${p.id}.svg`, portrait(p));
  write(`thumbs/${p.id}-full.svg`, portrait({ ...p, fullBody: true }));
  write(`avatar-configs/${p.id}-upper.json`, { ParentConfig: '/catalog/avatar-configs/base-upper-body.json', Avatar: { model: `${p.id}-upper`, skin: p.skin, hair: p.hair } });
  write(`avatar-configs/${p.id}-full.json`, { ParentConfig: '/catalog/avatar-configs/base-full-body.json', Avatar: { model: `${p.id}-full`, skin: p.skin, hair: p.hair } });
  list.upperBody.push({ id: `${p.id}-upper`, name: p.name, dhType: 2, thumbnail: `/catalog/thumbs/${p.id}.svg`, avatarConfigURL: `/catalog/avatar-configs/${p.id}-upper.json` });
  list.fullBody.push({ id: `${p.id}-full`, name: p.name, dhType: 3, thumbnail: `/catalog/thumbs/${p.id}-full.svg`, avatarConfigURL: `/catalog/avatar-configs/${p.id}-full.json` });
}
for (const p of people.slice(0, 2)) {
  write(`avatar-configs/${p.id}-image.json`, { ParentConfig: '/catalog/avatar-configs/base-image.json', Avatar: { model: `${p.id}-image` } });
  list.image.push({ id: `${p.id}-image`, name: `${p.name} (photo)`, dhType: 1, thumbnail: `/catalog/thumbs/${p.id}.svg`, avatarConfigURL: `/catalog/avatar-configs/${p.id}-image.json` });
}
write('avatars.json', list);

// Backgrounds: 16:9 SVG scenes.
const backgrounds = [
  { id: 'office', name: 'Office', a: '#e2e8f0', b: '#94a3b8', shapes: '<rect x="80" y="120" width="360" height="260" fill="#cbd5e1"/><rect x="960" y="90" width="240" height="420" fill="#f8fafc" opacity=".7"/><rect x="0" y="560" width="1280" height="160" fill="#64748b"/>' },
  { id: 'studio', name: 'Studio', a: '#1e1b4b', b: '#4338ca', shapes: '<circle cx="1040" cy="160" r="220" fill="#6366f1" opacity=".35"/><circle cx="180" cy="600" r="260" fill="#818cf8" opacity=".25"/>' },
  { id: 'beach', name: 'Beach', a: '#7dd3fc', b: '#fde68a', shapes: '<rect x="0" y="430" width="1280" height="120" fill="#0ea5e9"/><rect x="0" y="550" width="1280" height="170" fill="#fcd34d"/><circle cx="1060" cy="140" r="70" fill="#fef08a"/>' },
  { id: 'library', name: 'Library', a: '#78350f', b: '#451a03', shapes: Array.from({ length: 8 }, (_, i) => `<rect x="${40 + i * 155}" y="80" width="120" height="520" fill="#92400e" opacity=".8"/>`).join('') },
];
const env2d = backgrounds.map((b) => {
  write(`environments/${b.id}.svg`, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1280 720" width="1280" height="720"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${b.a}"/><stop offset="1" stop-color="${b.b}"/></linearGradient></defs><rect width="1280" height="720" fill="url(#g)"/>${b.shapes}</svg>`);
  return { id: b.id, name: b.name, url: `/catalog/environments/${b.id}.svg`, thumbnail: `/catalog/environments/${b.id}.svg` };
});

// 3D scenes: small glTF binaries made here (a ground disc and a few blocks).
function glb(name, boxes) {
  const positions = [];
  const indices = [];
  const addBox = ([x, y, z], [w, h, d]) => {
    const base = positions.length / 3;
    for (const dx of [-w / 2, w / 2]) for (const dy of [0, h]) for (const dz of [-d / 2, d / 2]) positions.push(x + dx, y + dy, z + dz);
    const f = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3];
    for (const i of f) indices.push(base + i);
  };
  for (const b of boxes) addBox(b.at, b.size);
  const pos = Buffer.from(new Float32Array(positions).buffer);
  const idx = Buffer.from(new Uint16Array(indices).buffer);
  const pad = (buf, fill = 0) => Buffer.concat([buf, Buffer.alloc((4 - (buf.length % 4)) % 4, fill)]);
  const bin = Buffer.concat([pad(pos), pad(idx)]);
  const min = [0, 1, 2].map((k) => Math.min(...positions.filter((_, i) => i % 3 === k)));
  const max = [0, 1, 2].map((k) => Math.max(...positions.filter((_, i) => i % 3 === k)));
  const json = {
    asset: { version: '2.0', generator: 'persona-studio make-catalog' },
    scene: 0,
    scenes: [{ name, nodes: [0] }],
    nodes: [{ mesh: 0, name }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1, material: 0 }] }],
    materials: [{ pbrMetallicRoughness: { baseColorFactor: [0.78, 0.8, 0.84, 1], metallicFactor: 0, roughnessFactor: 0.9 } }],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: pos.length, target: 34962 },
      { buffer: 0, byteOffset: pad(pos).length, byteLength: idx.length, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: positions.length / 3, type: 'VEC3', min, max },
      { bufferView: 1, componentType: 5123, count: indices.length, type: 'SCALAR' },
    ],
  };
  const jsonBuf = pad(Buffer.from(JSON.stringify(json)), 0x20);
  const header = Buffer.alloc(12);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + jsonBuf.length + 8 + bin.length, 8);
  const chunk = (buf, type) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(buf.length, 0);
    h.write(type, 4);
    return Buffer.concat([h, buf]);
  };
  return Buffer.concat([header, chunk(jsonBuf, 'JSON'), chunk(bin, 'BIN\0')]);
}
write('environments/plaza.glb', glb('plaza', [{ at: [0, -0.05, 0], size: [20, 0.05, 20] }, { at: [-4, 0, -5], size: [2, 3, 2] }, { at: [4, 0, -6], size: [3, 1, 1] }]));
write('environments/gallery.glb', glb('gallery', [{ at: [0, -0.05, 0], size: [12, 0.05, 12] }, { at: [0, 0, -6], size: [12, 4, 0.2] }, { at: [-6, 0, 0], size: [0.2, 4, 12] }]));
const env3d = [
  { id: 'plaza', name: 'Plaza', 'gltf-model': '/catalog/environments/plaza.glb', thumbnail: '/catalog/environments/studio.svg' },
  { id: 'gallery', name: 'Gallery', 'gltf-model': '/catalog/environments/gallery.glb', thumbnail: '/catalog/environments/office.svg' },
];
const light = [
  { id: 'studio', name: 'Studio', preset: 'studio', intensity: 1 },
  { id: 'daylight', name: 'Daylight', preset: 'daylight', intensity: 1.2 },
  { id: 'warm', name: 'Warm evening', preset: 'warm', intensity: 0.8 },
  { id: 'cool', name: 'Cool office', preset: 'cool', intensity: 1 },
];
write('environments.json', { env2d, env3d, video: [], light });

write('realtime-settings.json', {
  url: 'wss://api.openai.com/v1/realtime',
  model: 'gpt-4o-mini-realtime-preview',
  voice_id: 'alloy',
  instructions: 'You are a friendly assistant. Answer briefly and conversationally.',
  greeting: 'Hello! How can I help you today?',
  vad_options: { threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
});
write('client-config.json', {
  chat: { showHistory: true, showInput: true },
  ui: { fullscreenButton: true, micButton: true, draggable: true },
  locale: 'en-US',
});
console.log(`catalog written to ${path.relative(root, out)}`);
