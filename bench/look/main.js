// The look harness page: ?look=today|toon|portrait&w=640&h=480&mouth=0..1&blink=0..1&frame=card&aa=0|1&bench=N.
// Draws one persona, then says so in globalThis.__look (ready, bytes, and with bench=N the
// time per frame over N frames, the mouth moving as in speech). &bg=flat / &bg=blur swap the
// background, &outline=0 leaves the outline pass out; toon.js reads its own options (&mat,
// &hull, &lines, &lod, &aniso): to tell what a frame's time is spent on.
/* global document, location, requestAnimationFrame -- runs in the browser */
import { PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import { buildPortrait } from './portrait.js';
import { buildToday } from './today.js';
import { buildToon, softBackground } from './toon.js';

const q = new URLSearchParams(location.search);
const look = q.get('look') ?? 'today';
const w = Number(q.get('w') ?? 640);
const h = Number(q.get('h') ?? 480);
const mouth = Number(q.get('mouth') ?? 0);
const persona = q.get('persona') ?? 'maya';
const benchFrames = Number(q.get('bench') ?? 0);
const state = (globalThis.__look = { ready: false, error: null });

try {
  const stage = document.getElementById('stage');
  stage.style.width = `${w}px`;
  stage.style.height = `${h}px`;
  const canvas = document.createElement('canvas');
  stage.appendChild(canvas);
  const renderer = new WebGLRenderer({ canvas, antialias: q.get('aa') === '1', alpha: true, preserveDrawingBuffer: true });
  renderer.setClearColor(0x000000, 0);
  renderer.setPixelRatio(1);
  renderer.setSize(w, h, true);
  const scene = new Scene();
  const camera = new PerspectiveCamera(30, w / h, 0.05, 100);
  const built = await ({ toon: buildToon, portrait: buildPortrait }[look] ?? buildToday)({ scene, camera, stage, persona, renderer, w, h, outline: q.get('outline') !== '0' });
  if (q.get('bg') === 'flat') {
    const bg = stage.querySelector('#bg');
    bg.innerHTML = '';
    bg.style.background = '#E0E7FF';
  }
  if (q.get('bg') === 'blur') softBackground(stage);
  if (q.get('frame') === 'card' && built.framing) {
    // A card's framing: closer, the face higher in the frame (the page's is for a stage).
    const { top, centre } = built.framing;
    camera.position.set(centre.x, top - 0.13, centre.z + 0.68);
    camera.lookAt(centre.x, top - 0.15, centre.z);
  }
  built.setMouth(mouth);
  built.setBlink(Number(q.get('blink') ?? 0));
  await built.ready?.();
  renderer.render(scene, camera);
  state.bytes = built.bytes;
  state.extra = built.extra ?? null;
  const gl = renderer.getContext();
  gl.finish();
  if (benchFrames > 0) {
    // Warm-up, then N frames as the page draws them: the mouth moves, each frame is finished
    // (SwiftShader draws on the CPU) and timed; rAF intervals give the frame rate it would hold.
    const t0 = performance.now();
    const pixel = new Uint8Array(4);
    const times = [];
    const intervals = [];
    let last = performance.now();
    await new Promise((resolve) => {
      let i = 0;
      const step = () => {
        const now = performance.now();
        if (i > 0) intervals.push(now - last);
        last = now;
        const s = performance.now();
        built.setMouth(0.5 + 0.5 * Math.sin((now - t0) / 90));
        renderer.render(scene, camera);
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        times.push(performance.now() - s);
        if (++i < benchFrames + 10) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
    const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
    const warm = times.slice(10);
    state.bench = {
      frames: warm.length,
      renderMsMean: warm.reduce((s, x) => s + x, 0) / warm.length,
      renderMsMedian: med(warm),
      intervalMsMedian: med(intervals.slice(10)),
      fps: 1000 / (intervals.slice(10).reduce((s, x) => s + x, 0) / intervals.slice(10).length),
      drawCalls: renderer.info.render.calls,
      triangles: renderer.info.render.triangles,
    };
    built.setMouth(mouth);
    renderer.render(scene, camera);
  }
  state.ready = true;
} catch (e) {
  state.error = String(e?.stack ?? e);
}
