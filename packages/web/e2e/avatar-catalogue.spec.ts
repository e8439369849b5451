import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { FACE_ARGS, readProbe, waitForFrames } from './support/avatar-face';
import { startFakeLive } from './support/fake-live-server.mjs';

// Every catalogue avatar in its environments (issue 28), shot at desktop width and — the first of
// each kind — at 390 px, against a fake portal and worker that speak the real protocol. One test per
// kind, so the runner spreads them over its workers (each worker starts its own fake server); the
// shots land in screenshots/avatars/ for looking at.
// No trace: its screencast throttles the frames the page is drawn with.
test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: FACE_ARGS }, trace: 'off', viewport: { width: 640, height: 480 } });

const here = path.dirname(fileURLToPath(import.meta.url));
type Kind = 'image' | 'upperBody' | 'fullBody';
const catalog = JSON.parse(fs.readFileSync(path.join(here, '../../server/catalog/avatars.json'), 'utf8')) as Record<Kind, { id: string; name: string; dhType: number; avatarConfigURL: string }[]>;
const shots = path.join(here, 'screenshots', 'avatars');
const json = (body: unknown) => ({ type: 'application/json', body: JSON.stringify(body) });

/** Each catalogue avatar of every kind in its two environments: a background colour or picture for image and upper body, 3D scenes for full body. */
const files: Record<string, { type: string; body: string }> = {};
const avatars: Record<string, { name: string; dhType: number; avatarConfigUrl: string }> = {};
const shotList = new Map<Kind, { id: number; name: string; first: boolean }[]>();
let nextId = 100;
for (const [kind, list] of Object.entries(catalog) as [Kind, (typeof catalog)[Kind]][]) {
  const mine: { id: number; name: string; first: boolean }[] = [];
  for (const [index, item] of list.entries()) {
    const envs: [string, Record<string, unknown>][] =
      kind === 'fullBody'
        ? [
            ['plaza', {}],
            ['gallery', { Environment: { 'gltf-model': '/catalog/environments/gallery.glb' }, Lights: { preset: 'warm', intensity: 1 } }],
          ]
        : [
            ['colour', { panel: { Enable: false, BgColor: '#E0E7FF' } }],
            ['office', { panel: { Enable: true, contentURL: '/catalog/environments/office.svg' }, Lights: { preset: 'cool', intensity: 1 } }],
          ];
    for (const [env, overrides] of envs) {
      const url = `/test/env/${item.id}-${env}.json`;
      files[url] = json({ ParentConfig: item.avatarConfigURL, ...overrides });
      avatars[String(nextId)] = { name: item.name, dhType: item.dhType, avatarConfigUrl: url };
      mine.push({ id: nextId, name: `${item.id}-${env}`, first: index === 0 });
      nextId++;
    }
  }
  shotList.set(kind, mine);
}

let server: Awaited<ReturnType<typeof startFakeLive>>;
test.beforeAll(async () => {
  server = await startFakeLive({ avatars, files });
});
test.afterAll(async () => {
  await server?.close();
});

for (const kind of ['image', 'upperBody', 'fullBody'] as const) {
  test(`every ${kind} catalogue avatar in its environments at desktop width, and the first at 390 px`, async ({ page }) => {
    test.setTimeout(300_000);
    // Still pictures: the avatars' idle life is not drawn at full rate while they load and are shot.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    fs.mkdirSync(shots, { recursive: true });
    const list = shotList.get(kind)!;
    expect(list.length).toBeGreaterThan(0);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
      // The page's layout at phone width is the same for every avatar of a kind: all of them only
      // when asked for (E2E_ALL_SHOTS=1, for a visual review of the catalogue).
      for (const item of width > 760 || process.env.E2E_ALL_SHOTS ? list : list.filter((x) => x.first)) {
        await page.goto(`${server.url}/avatar/${item.id}?hideChatHistory=true`);
        await waitForFrames(page, 3);
        expect((await readProbe(page))?.error ?? null, item.name).toBeNull();
        if (kind === 'fullBody') {
          // A full body is framed as a medium shot (ADR 089): its head (crown to chin, projected)
          // is a fifth of the stage's height or more, not the whole figure's 64 px at 640×480.
          const l = await page.evaluate(() => (window as unknown as { __personaThreeLayout?: { stage: { height: number }; head: { y: number; height: number } } }).__personaThreeLayout ?? null);
          expect(l, item.name).not.toBeNull();
          expect(l!.head.height, `${item.name} at ${width} px: ${JSON.stringify(l)}`).toBeGreaterThan(l!.stage.height * (width > 760 ? 0.2 : 0.15));
          expect(l!.head.y, item.name).toBeGreaterThan(0);
        }
        await page.screenshot({ path: path.join(shots, `${item.name}-${width}.png`) });
      }
    }
  });
}
