import type { Page } from '@playwright/test';
import { SCRIPT } from './fake-live-server.mjs';

/** Chromium flags for the rendered avatar: WebGL on SwiftShader, sound without a gesture. */
export const FACE_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-swiftshader',
  '--use-angle=swiftshader',
  '--autoplay-policy=no-user-gesture-required',
];

type Probe = {
  renderer: string;
  frames: number;
  firstFrameAt: number | null;
  fps: number;
  renderScale: number;
  targets: Record<string, number>;
  targetPeaks: Record<string, number>;
  history: { t: number; open: number; utt: number | null; ms: number | null }[];
  levels: { t: number; rms: number }[];
  route: string | null;
  error: string | null;
  probe?: () => void;
};

export const readProbe = (page: Page) => page.evaluate(() => (window as unknown as { __personaAvatar?: Probe }).__personaAvatar ?? null);

/** Waits until the avatar has drawn a few frames with its renderer (or fell back). */
export async function waitForFrames(page: Page, frames = 5) {
  await page.waitForFunction((n) => {
    const p = (window as unknown as { __personaAvatar?: Probe }).__personaAvatar;
    return p && (p.frames >= n || p.renderer === 'dom');
  }, frames, { timeout: 30_000 });
}

/** A PNG's pixels (RGBA), decoded by the browser (no PNG decoder in the test's dependencies). */
async function pixels(page: Page, png: Buffer): Promise<{ d: Uint8Array; w: number; h: number }> {
  const { rgba, w, h } = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    let bin = '';
    for (let i = 0; i < data.length; i += 0x8000) bin += String.fromCharCode(...data.subarray(i, i + 0x8000));
    return { rgba: btoa(bin), w: c.width, h: c.height };
  }, png.toString('base64'));
  return { d: new Uint8Array(Buffer.from(rgba, 'base64')), w, h };
}

/** How many distinct colours (quantised) a PNG screenshot holds: a blank frame has one or two. */
export async function distinctColours(page: Page, png: Buffer): Promise<number> {
  const { d } = await pixels(page, png);
  const seen = new Set<number>();
  for (let i = 0; i < d.length; i += 16) seen.add(((d[i]! >> 4) << 8) | ((d[i + 1]! >> 4) << 4) | (d[i + 2]! >> 4));
  return seen.size;
}

/** The average colour of a PNG screenshot. */
export async function averageColour(page: Page, png: Buffer): Promise<[number, number, number]> {
  const { d } = await pixels(page, png);
  const sum = [0, 0, 0];
  for (let i = 0; i < d.length; i += 4) for (let k = 0; k < 3; k++) sum[k]! += d[i + k]!;
  const n = d.length / 4;
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}

/**
 * Whether a thumbnail's figure hangs together down its middle: for each row, is any pixel near
 * the centre line (within 12 % of the width) unlike that row's background (the thumbnails'
 * background is a vertical gradient, so the row's left edge is its colour)? Answers the figure's
 * top and bottom rows and the longest run of empty rows between them: a head floating apart
 * from its body leaves such a run under the chin.
 */
export async function figureGap(page: Page, png: Buffer): Promise<{ top: number; bottom: number; longestGap: number; height: number }> {
  const { d, w, h } = await pixels(page, png);
  const band = Math.round(w * 0.12);
  const rows: boolean[] = [];
  for (let y = 0; y < h; y++) {
    const bg = (y * w + 1) * 4;
    let isFigure = false;
    for (let x = Math.floor(w / 2) - band; x <= Math.floor(w / 2) + band && !isFigure; x++) {
      const i = (y * w + x) * 4;
      isFigure = Math.max(Math.abs(d[i]! - d[bg]!), Math.abs(d[i + 1]! - d[bg + 1]!), Math.abs(d[i + 2]! - d[bg + 2]!)) > 40;
    }
    rows.push(isFigure);
  }
  const top = rows.indexOf(true);
  const bottom = rows.lastIndexOf(true);
  let longestGap = 0;
  let run = 0;
  for (let y = top; y <= bottom; y++) {
    run = rows[y] ? 0 : run + 1;
    longestGap = Math.max(longestGap, run);
  }
  return { top, bottom, longestGap, height: h };
}

/**
 * The mouth against the audio: for each scripted segment, the mean mouth openness while that
 * part of the utterance was being heard (by the page's audio clock), away from the edges.
 */
export function mouthBySegment(history: Probe['history'], margin = 90) {
  return SCRIPT.map((seg) => {
    const inside = history.filter((h) => h.ms !== null && h.ms >= seg.t + margin && h.ms <= seg.t + seg.d - margin);
    const mean = inside.length ? inside.reduce((s, h) => s + h.open, 0) / inside.length : Number.NaN;
    return { voiced: seg.v !== null, t: seg.t, frames: inside.length, mean };
  });
}

/**
 * The mouth against the level of the audio heard (the loopback's received stream), independently
 * of the page's clock: on the frames of an utterance, whether the mouth is open (> 0.1) where there
 * is sound (level > 0.03) and closed where there is none. The meter's reading and the mouth's clock
 * drift apart by a few hundred ms on a starved machine (the audio thread renders ahead of or behind
 * the frames), so the level is read `lag` ms off the frame, for the lag within ±300 ms that agrees
 * best — a mouth that follows the sound agrees at some lag, one that does not agrees at none.
 * Frames within `edgeMs` of a change of the level's state are left out: there a frame one behind
 * or ahead of the meter's window counts as disagreeing.
 */
export function mouthLevelAgreement(history: Probe['history'], levels: Probe['levels'], edgeMs = 80) {
  const sound = levels.map((l) => ({ t: l.t, on: l.rms > 0.03 })).sort((a, b) => a.t - b.t);
  /** The level's state at time t: the last reading at or before it, if it is recent. */
  const stateAt = (t: number): boolean | undefined => {
    let found: { t: number; on: boolean } | undefined;
    for (const s of sound) {
      if (s.t > t) break;
      found = s;
    }
    return found && t - found.t <= 100 ? found.on : undefined;
  };
  let best = { frames: 0, agree: 0, lag: 0 };
  for (let lag = -300; lag <= 300; lag += 20) {
    let frames = 0;
    let agree = 0;
    for (const h of history) {
      if (h.utt === null) continue;
      const t = h.t + lag;
      const on = stateAt(t);
      if (on === undefined) continue;
      if (sound.some((s) => Math.abs(s.t - t) <= edgeMs && s.on !== on)) continue;
      frames++;
      if (on === h.open > 0.1) agree++;
    }
    const ratio = (x: { frames: number; agree: number }) => (x.frames ? x.agree / x.frames : 0);
    if (frames >= 6 && ratio({ frames, agree }) > ratio(best)) best = { frames, agree, lag };
  }
  return best;
}

/**
 * Offset between the sound heard and the mouth (ms; positive = mouth late): at each voiced
 * onset and offset, when the measured level crosses half its peak versus when the mouth's
 * openness crosses half its peak. Both series are sampled on the same animation frames.
 */
export function audioMouthOffsets(history: Probe['history'], levels: Probe['levels']) {
  const open = history.map((h) => ({ t: h.t, v: h.open }));
  const rms = levels.map((l) => ({ t: l.t, v: l.rms }));
  const crossings = (series: { t: number; v: number }[]) => {
    const peak = Math.max(...series.map((s) => s.v));
    const half = peak / 2;
    const up: number[] = [];
    const down: number[] = [];
    for (let i = 1; i < series.length; i++) {
      const a = series[i - 1]!;
      const b = series[i]!;
      if (a.v < half && b.v >= half) up.push(a.t + ((half - a.v) / (b.v - a.v || 1)) * (b.t - a.t));
      if (a.v >= half && b.v < half) down.push(a.t + ((a.v - half) / (a.v - b.v || 1)) * (b.t - a.t));
    }
    return { up, down };
  };
  const m = crossings(open);
  const s = crossings(rms);
  const pair = (sound: number[], mouth: number[]) =>
    sound.map((t) => {
      const near = mouth.reduce((best, x) => (Math.abs(x - t) < Math.abs(best - t) ? x : best), Number.POSITIVE_INFINITY);
      return near - t;
    }).filter((d) => Math.abs(d) < 400);
  return { onsets: pair(s.up, m.up), offsets: pair(s.down, m.down) };
}

const hexRgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
const dist = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/**
 * How much of a drawn face the open mouth's dark interior covers, from two stills of the same
 * pose (the test hook's `hold` with `still`): pixels of the interior (dark red-brown) on the open
 * mouth that were not so at rest (hair and outlines are dark in both), against pixels of skin at
 * rest (lit or in the toon shade); the new interior's bounding box, and inside that box on the
 * open mouth the pixels that are the background colour (a hole in the face) and teeth (near white).
 */
export async function mouthCoverage(page: Page, openPng: Buffer, restPng: Buffer, skinHex: string, backgroundHex: string, faceBox?: { x: number; y: number; width: number; height: number }) {
  const open = await pixels(page, openPng);
  const rest = await pixels(page, restPng);
  const { w, h } = open;
  const skin = hexRgb(skinHex);
  const shaded = [skin[0] * 0.895, skin[1] * 0.745, skin[2] * 0.76];
  const bg = hexRgb(backgroundHex);
  const isInterior = (d: Uint8Array, i: number) => {
    const [r, g, b] = [d[i]!, d[i + 1]!, d[i + 2]!];
    return r > 25 && r < 150 && g < 70 && b < 85 && r > g + 22;
  };
  let interior = 0;
  let face = 0;
  let box = { x0: w, y0: h, x1: -1, y1: -1 };
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const px = [rest.d[i]!, rest.d[i + 1]!, rest.d[i + 2]!] as const;
      const inBox = !faceBox || (x >= faceBox.x && x < faceBox.x + faceBox.width && y >= faceBox.y && y < faceBox.y + faceBox.height);
      if (inBox && Math.min(dist(px, skin), dist(px, shaded)) < 40) face++;
      if (isInterior(open.d, i) && !isInterior(rest.d, i)) {
        interior++;
        box = { x0: Math.min(box.x0, x), y0: Math.min(box.y0, y), x1: Math.max(box.x1, x), y1: Math.max(box.y1, y) };
      }
    }
  let background = 0;
  let teeth = 0;
  for (let y = box.y0; y <= box.y1; y++)
    for (let x = box.x0; x <= box.x1; x++) {
      const i = (y * w + x) * 4;
      const px = [open.d[i]!, open.d[i + 1]!, open.d[i + 2]!] as const;
      if (dist(px, bg) < 24) background++;
      if (px[0] > 200 && px[1] > 190 && px[2] > 180) teeth++;
    }
  return { interior, face, share: interior / Math.max(1, face), box: { ...box, width: box.x1 - box.x0 + 1, height: box.y1 - box.y0 + 1 }, background, teeth };
}

/** How many pixels of `b` differ from `a` (same size) by more than 24 grey levels: decoded in the page (no PNG decoder among the test's dependencies). */
export async function pixelsChanged(page: Page, a: Buffer, b: Buffer): Promise<number> {
  return page.evaluate(
    async ([a64, b64]) => {
      const grey = async (b64: string) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const g = c.getContext('2d')!;
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        const out = new Float32Array(c.width * c.height);
        for (let i = 0; i < out.length; i++) out[i] = 0.299 * d[i * 4]! + 0.587 * d[i * 4 + 1]! + 0.114 * d[i * 4 + 2]!;
        return out;
      };
      const [ga, gb] = await Promise.all([grey(a64), grey(b64)]);
      let n = 0;
      for (let i = 0; i < Math.min(ga.length, gb.length); i++) if (Math.abs(ga[i]! - gb[i]!) > 24) n++;
      return n;
    },
    [a.toString('base64'), b.toString('base64')] as const,
  );
}

/** The share of a PNG's pixels that are skin (lit, or in the toon shade) of this colour: is a head really drawn where the layout says? */
export async function skinShare(page: Page, png: Buffer, skinHex: string) {
  const { d } = await pixels(page, png);
  const skin = hexRgb(skinHex);
  const shaded = [skin[0] * 0.895, skin[1] * 0.745, skin[2] * 0.76];
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    const px = [d[i]!, d[i + 1]!, d[i + 2]!] as const;
    if (Math.min(dist(px, skin), dist(px, shaded)) < 40) n++;
  }
  return n / (d.length / 4);
}
