// Writes the default catalogue the avatar creator reads (packages/server/catalog): avatar
// thumbnails (SVG portraits), avatar config files with ParentConfig chains, environments
// (SVG backgrounds, small glTF scenes made here), lighting presets, realtime settings and the
// default client config. Run it again after changing this script; its output is committed.
import fs from 'node:fs';
import path from 'node:path';
import { SCENES, sceneGlb, sceneThumbnail } from './environment-scenes.mjs';
import { root } from './lib.mjs';
import { BUDGET, EXPRESSIONS, FRAMING, MOUTH_SHAPES, VISEMES, personaGlb, portraitLayers, renderThumbnail } from './make-personas.mjs';

const out = path.join(root, 'packages/server/catalog');
const write = (rel, data) => {
  const file = path.join(out, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof data === 'string' || Buffer.isBuffer(data) ? data : `${JSON.stringify(data, null, 2)}\n`);
};

const people = [
  { id: 'maya', name: 'Maya', skin: '#f1c9a5', hair: '#3b2314', shirt: '#4f46e5', bg: '#e0e7ff', hairStyle: 'long', build: 'f', eyes: '#3f6b3a', lip: '#b85c5c', legs: '#334155', shoes: '#4a3426' },
  { id: 'leo', name: 'Leo', skin: '#c68642', hair: '#1b1b1b', shirt: '#0f766e', bg: '#ccfbf1', hairStyle: 'short', build: 'm', eyes: '#3b2a1a', lip: '#9a4a3c', legs: '#1f2937', shoes: '#2b2b2b' },
  { id: 'amara', name: 'Amara', skin: '#8d5524', hair: '#111827', shirt: '#b45309', bg: '#fef3c7', hairStyle: 'bun', build: 'f', eyes: '#2b1a10', lip: '#6e2f2a', legs: '#3f2a1e', shoes: '#5b3a24' },
  { id: 'kenji', name: 'Kenji', skin: '#eac086', hair: '#0b0b0b', shirt: '#be123c', bg: '#ffe4e6', hairStyle: 'short', build: 'm', eyes: '#2b1d12', lip: '#b0665a', legs: '#27303f', shoes: '#1f1f1f' },
  { id: 'sofia', name: 'Sofia', skin: '#ffdbac', hair: '#a16207', shirt: '#7c3aed', bg: '#ede9fe', hairStyle: 'long', build: 'f', eyes: '#2f5d8a', lip: '#c0606a', legs: '#374151', shoes: '#6b4226' },
  { id: 'omar', name: 'Omar', skin: '#a0662f', hair: '#2d1b0e', shirt: '#1d4ed8', bg: '#dbeafe', hairStyle: 'short', build: 'm', eyes: '#2b1a10', lip: '#7d3b30', legs: '#2a2f3a', shoes: '#3b2f2a' },
];

/** A catalogue person as the page's toon recipe (packages/web/src/live-client/render/toon-recipe.ts checks it). */
function personaRecipe(p, kind) {
  return {
    format: 'persona-toon',
    version: 1,
    name: p.name,
    body: kind,
    build: p.build,
    hairStyle: p.hairStyle,
    colours: { skin: p.skin, hair: p.hair, top: p.shirt, eyes: p.eyes, lips: p.lip, legs: p.legs, shoes: p.shoes },
  };
}

// Base configs: what every avatar of a kind inherits; each avatar's config names its parent.
// The default background is a soft colour (the stage paints it with depth), never white.
write('avatar-configs/base.json', {
  Subtitle: { Enabled: true },
  panel: { Enable: false, contentURL: '', BgColor: '#E0E7FF' },
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
// The look the page draws (the toon people of ADR 089) is rendered by a browser from the built
// page (make-thumbnails.mjs, make-portraits.mjs, after the loop); without a build the 3D
// thumbnails are drawn from the GLBs and the 2D people are the SVG portraits instead.
const browserLook = fs.existsSync(path.join(root, 'packages/web/dist/index.html'));
if (!browserLook) console.warn('packages/web/dist is missing: the 3D thumbnails are drawn from the GLBs and the 2D people are the SVG portraits (run `npm run build`, then this again, for the toon look)');
// Old thumbnails and models are replaced, not left behind.
for (const dir of ['thumbs', 'models', 'portraits']) fs.rmSync(path.join(out, dir), { recursive: true, force: true });
const figures = {};
for (const p of people) {
  for (const fullBody of [false, true]) {
    const kind = fullBody ? 'full' : 'upper';
    const { bytes, figures: f, person } = await personaGlb(p, { fullBody });
    figures[`${p.id}-${kind}`] = f;
    write(`models/${p.id}-${kind}.glb`, bytes);
    if (!browserLook) write(`thumbs/${p.id}-${kind}.png`, renderThumbnail(person, { fullBody, background: p.bg }));
    // What the page draws: the person as a recipe it builds in the toon look (ADR 089; the GLB
    // above stays the person's reference model and the fallback thumbnails' source).
    const recipe = personaRecipe(p, kind);
    write(`models/${p.id}-${kind}.persona.json`, recipe);
    f.recipeBytes = Buffer.byteLength(`${JSON.stringify(recipe, null, 2)}\n`);
    write(`avatar-configs/${p.id}-${kind}.json`, {
      ParentConfig: `/catalog/avatar-configs/base-${fullBody ? 'full' : 'upper'}-body.json`,
      panel: { BgColor: p.bg.toUpperCase() },
      Avatar: { model: `${p.id}-${kind}`, modelURL: `/catalog/models/${p.id}-${kind}.persona.json`, skin: p.skin, hair: p.hair },
    });
    (fullBody ? list.fullBody : list.upperBody).push({ id: `${p.id}-${kind}`, name: p.name, dhType: fullBody ? 3 : 2, thumbnail: `/catalog/thumbs/${p.id}-${kind}.png`, avatarConfigURL: `/catalog/avatar-configs/${p.id}-${kind}.json` });
  }
  // The image avatar: a layered 2D portrait the page composes (its backdrop always from here; its
  // layers, manifest and card from make-portraits.mjs, or the SVG ones below without a build).
  const layers = portraitLayers(p);
  const dir = `portraits/${p.id}`;
  write(`${dir}/backdrop.svg`, layers.backdrop);
  if (!browserLook) {
    write(`${dir}/base.svg`, layers.base);
    write(`${dir}/eyes-open.svg`, layers.eyesOpen);
    write(`${dir}/eyes-closed.svg`, layers.eyesClosed);
    for (const shape of MOUTH_SHAPES) write(`${dir}/mouth-${shape}.svg`, layers.mouths[shape]);
    write(`${dir}/portrait.json`, {
      size: [layers.width, layers.height],
      backdrop: `/catalog/${dir}/backdrop.svg`,
      base: `/catalog/${dir}/base.svg`,
      eyes: { open: `/catalog/${dir}/eyes-open.svg`, closed: `/catalog/${dir}/eyes-closed.svg` },
      mouth: Object.fromEntries(MOUTH_SHAPES.map((shape) => [shape, `/catalog/${dir}/mouth-${shape}.svg`])),
      anchors: layers.anchors,
    });
    write(`thumbs/${p.id}-image.svg`, layers.composite);
  }
  write(`avatar-configs/${p.id}-image.json`, { ParentConfig: '/catalog/avatar-configs/base-image.json', Avatar: { model: `${p.id}-image`, portraitURL: `/catalog/${dir}/portrait.json` } });
  list.image.push({ id: `${p.id}-image`, name: `${p.name} (illustration)`, dhType: 1, thumbnail: `/catalog/thumbs/${p.id}-image.${browserLook ? 'png' : 'svg'}`, avatarConfigURL: `/catalog/avatar-configs/${p.id}-image.json` });
}
// What the models hold and cost, for the docs and the upload check's comparison.
write('models/budget.json', { budget: BUDGET, morphTargets: [...VISEMES.map((v) => `viseme_${v}`), ...EXPRESSIONS], framing: FRAMING, models: figures });
write('avatars.json', list);
// The 3D people's thumbnails and the 2D people's layers and cards in the look the page draws.
if (browserLook) {
  const { makeThumbnails } = await import('./make-thumbnails.mjs');
  const { makePortraits } = await import('./make-portraits.mjs');
  await makeThumbnails();
  await makePortraits();
}

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

// 3D scenes: small glTF binaries made here (environment-scenes.mjs: a town square, a gallery).
const env3d = SCENES.map((scene) => {
  const built = scene.build(scene.sky[1]);
  write(`environments/${scene.id}.glb`, sceneGlb(scene.id, built.parts));
  write(`environments/${scene.id}-thumb.svg`, sceneThumbnail(built, { sky: scene.sky }));
  return { id: scene.id, name: scene.name, 'gltf-model': `/catalog/environments/${scene.id}.glb`, thumbnail: `/catalog/environments/${scene.id}-thumb.svg` };
});
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
