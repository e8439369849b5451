import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The default catalogue served at /catalog (written by scripts/make-catalog.mjs): what its lists
 * say matches what they show (issue 26: the 3D scenes' thumbnails were the 2D pictures — Plaza
 * showed Studio — and the drawn image avatars were called photos).
 */
const catalog = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../catalog');
const read = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(catalog, file), 'utf8')) as T;
const fileOf = (url: string) => path.join(catalog, url.replace(/^\/catalog\//, ''));

describe('the default catalogue', () => {
  it("each 3D scene's thumbnail is a picture of that scene, not one of the 2D backgrounds", () => {
    const envs = read<{ env2d: { url: string; thumbnail: string }[]; env3d: { id: string; 'gltf-model': string; thumbnail: string }[] }>('environments.json');
    expect(envs.env3d.length).toBeGreaterThan(0);
    const pictures2d = new Set(envs.env2d.flatMap((e) => [e.url, e.thumbnail]));
    const seen = new Set<string>();
    for (const scene of envs.env3d) {
      expect(pictures2d.has(scene.thumbnail), `${scene.id}: ${scene.thumbnail} is a 2D background`).toBe(false);
      expect(seen.has(scene.thumbnail), `${scene.id} shares its thumbnail`).toBe(false);
      seen.add(scene.thumbnail);
      const svg = fs.readFileSync(fileOf(scene.thumbnail), 'utf8');
      // The scene's boxes, drawn: polygons over a sky.
      expect((svg.match(/<polygon /g) ?? []).length, scene.id).toBeGreaterThanOrEqual(3);
      expect(fs.existsSync(fileOf(scene['gltf-model']))).toBe(true);
    }
  });

  it('image avatars are called what they are: drawn portraits, not photos', () => {
    const avatars = read<{ image: { name: string; thumbnail: string }[] }>('avatars.json');
    expect(avatars.image.length).toBeGreaterThan(0);
    for (const a of avatars.image) {
      expect(a.name).not.toMatch(/photo/i);
      expect(a.name).toMatch(/\(illustration\)$/);
      // Drawn (the toon people of ADR 089, rendered by the project's scripts): a PNG card and a
      // layered portrait whose layers are images the catalogue holds.
      expect(fs.readFileSync(fileOf(a.thumbnail)).subarray(1, 4).toString()).toBe('PNG');
      const config = read<{ Avatar: { portraitURL: string } }>(`avatar-configs/${a.thumbnail.split('/').pop()!.replace(/\.png$/, '')}.json`);
      const portrait = read<{ base: string; eyes: Record<string, string>; mouth: Record<string, string> }>(config.Avatar.portraitURL.replace(/^\/catalog\//, ''));
      for (const layer of [portrait.base, ...Object.values(portrait.eyes), ...Object.values(portrait.mouth)]) expect(fs.existsSync(fileOf(layer)), layer).toBe(true);
    }
  });
});
