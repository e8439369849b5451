import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { FACE_ARGS, readProbe, waitForFrames } from './support/avatar-face';
import { startFakeLive } from './support/fake-live-server.mjs';

// Moods and gestures on every catalogue kind (issue 28): each held still through the page's test
// hook (head at rest, the mood's face, the gesture at its peak), measured against the neutral
// still — a mood must change the face, a gesture the head or arms — and laid out as a contact
// sheet in the test output to be looked at. Against the fake portal and worker; 3D on software WebGL.
test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: FACE_ARGS }, trace: 'off', viewport: { width: 640, height: 480 }, reducedMotion: 'no-preference' });
test.describe.configure({ mode: 'default' });

const MOODS = ['happy', 'sad', 'surprised', 'concerned', 'thinking'] as const;
/** Each gesture where its motion peaks (a nod at the bottom of its dip, a shake at a turn). */
const GESTURES = [
  ['nod', 0.375],
  ['shake', 0.4167],
  ['wave', 0.5],
  ['point', 0.5],
  ['shrug', 0.5],
] as const;
const KINDS = [
  { id: '1', name: 'Maya (upper body)', file: 'maya-upper', dhType: 2, arms: true },
  { id: '2', name: 'Leo (full body)', file: 'leo-full', dhType: 3, arms: true },
  { id: '3', name: 'Maya (2D)', file: 'maya-image', dhType: 1, arms: false },
] as const;

let server: Awaited<ReturnType<typeof startFakeLive>>;
test.beforeAll(async () => {
  server = await startFakeLive({
    avatars: Object.fromEntries(KINDS.map((k) => [k.id, { name: k.name, dhType: k.dhType, avatarConfigUrl: `/catalog/avatar-configs/${k.file}.json` }])),
  });
});
test.afterAll(async () => {
  await server?.close();
});

type Hold = { still: true; viseme: 'sil'; blink: 0; mood?: string; gesture?: string; gestureProgress?: number };
type Hook = { frames: number; hold?: (h: Hold | null) => void };

/** Holds the face and waits until a few frames have been drawn with it; the stage's pixels. */
async function shoot(page: Page, hold: Hold): Promise<Buffer> {
  const frames = await page.evaluate((h) => {
    const p = (window as unknown as { __personaAvatar: Hook }).__personaAvatar;
    p.hold!(h);
    return p.frames;
  }, hold);
  await page.waitForFunction((n) => (window as unknown as { __personaAvatar: Hook }).__personaAvatar.frames > n + 3, frames);
  return page.locator('.ps-stage').screenshot();
}

/**
 * In the page (no PNG decoder among the test's dependencies): how many pixels of each still differ
 * from the first by more than 24 grey levels, and the contact sheet of them all with their names.
 */
async function compare(page: Page, stills: { name: string; png: Buffer }[], title: string) {
  return page.evaluate(
    async ({ cells, title }) => {
      const decoded = await Promise.all(
        cells.map(async (c) => {
          const img = new Image();
          img.src = `data:image/png;base64,${c.b64}`;
          await img.decode();
          return img;
        }),
      );
      const w = decoded[0]!.width;
      const h = decoded[0]!.height;
      const grey = (img: HTMLImageElement) => {
        const c = document.createElement('canvas');
        c.width = w;
        c.height = h;
        const g = c.getContext('2d')!;
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, w, h).data;
        const out = new Float32Array(w * h);
        for (let i = 0; i < out.length; i++) out[i] = 0.299 * d[i * 4]! + 0.587 * d[i * 4 + 1]! + 0.114 * d[i * 4 + 2]!;
        return out;
      };
      const base = grey(decoded[0]!);
      const changed = decoded.map((img) => {
        const g = grey(img);
        let n = 0;
        for (let i = 0; i < g.length; i++) if (Math.abs(g[i]! - base[i]!) > 24) n++;
        return n;
      });
      const cols = 4;
      const tw = 320;
      const th = Math.round((tw * h) / w);
      const out = document.createElement('canvas');
      out.width = tw * cols;
      out.height = 28 + th * Math.ceil(decoded.length / cols);
      const o = out.getContext('2d')!;
      o.fillStyle = '#111';
      o.fillRect(0, 0, out.width, out.height);
      o.fillStyle = '#fff';
      o.font = 'bold 15px sans-serif';
      o.fillText(title, 8, 19);
      decoded.forEach((img, i) => {
        const x = (i % cols) * tw;
        const y = 28 + Math.floor(i / cols) * th;
        o.drawImage(img, x, y, tw, th);
        o.fillStyle = 'rgba(0,0,0,0.6)';
        o.fillRect(x, y + th - 20, tw, 20);
        o.fillStyle = '#fff';
        o.font = '13px sans-serif';
        o.fillText(`${cells[i]!.name}${i ? ` · ${changed[i]} px changed` : ''}`, x + 6, y + th - 6);
      });
      return { changed, sheet: out.toDataURL('image/png') };
    },
    { cells: stills.map((s) => ({ name: s.name, b64: s.png.toString('base64') })), title },
  );
}

for (const kind of KINDS) {
  test(`${kind.name}: each mood changes the face, each gesture the head${kind.arms ? ' or the arms' : ''}; contact sheet`, async ({ page }, info) => {
    test.setTimeout(120_000);
    await page.goto(`${server.url}/avatar/${kind.id}`);
    await waitForFrames(page);
    const rest: Hold = { still: true, viseme: 'sil', blink: 0 };
    const stills = [{ name: 'neutral', png: await shoot(page, rest) }];
    for (const mood of MOODS) stills.push({ name: mood, png: await shoot(page, { ...rest, mood }) });
    for (const [gesture, gestureProgress] of GESTURES) stills.push({ name: gesture, png: await shoot(page, { ...rest, gesture, gestureProgress }) });
    const { changed, sheet } = await compare(page, stills, `${kind.name}: moods and gestures (held, 640×480)`);
    const file = info.outputPath(`moods-gestures-${kind.file}.png`);
    fs.writeFileSync(file, Buffer.from(sheet.split(',')[1]!, 'base64'));
    await info.attach('contact sheet', { path: file, contentType: 'image/png' });
    const figures = Object.fromEntries(stills.map((s, i) => [s.name, changed[i]!]));
    console.log(`[avatar-moods] ${kind.file}: pixels changed from neutral ${JSON.stringify(figures)}`);
    expect((await readProbe(page))?.error ?? null).toBeNull();

    // The neutral still is the same twice over (a held still is deterministic: the comparison means something).
    const again = await compare(page, [stills[0]!, { name: 'neutral again', png: await shoot(page, rest) }], 'neutral twice');
    console.log(`[avatar-moods] ${kind.file}: neutral held twice, ${again.changed[1]} px changed`);
    expect(again.changed[1], 'neutral held twice').toBeLessThan(3);
    // Thresholds at about a third of what was measured (ADR 088: upper body and 2D 97–429 px for a
    // mood; full body 102–173 since it is framed as a medium shot, ADR 089 — it was 22–47 with the
    // whole figure): a mood that stopped reaching the face, or a gesture the body, fails. The full
    // body's smile changes less (24 px from the neutral still's slight smile).
    const face = 30;
    for (const mood of MOODS) expect(figures[mood], `${mood} changes the face`).toBeGreaterThan(kind.dhType === 3 && mood === 'happy' ? 8 : face);
    for (const [gesture] of GESTURES) {
      const arm = kind.arms && (gesture === 'wave' || gesture === 'point' || gesture === 'shrug');
      expect(figures[gesture], `${gesture} shows`).toBeGreaterThan(arm ? 1200 : kind.dhType === 3 ? 300 : 1500);
    }
  });
}
