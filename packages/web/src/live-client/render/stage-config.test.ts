import { describe, expect, it } from 'vitest';
import { readStageConfig, resolveConfigChain, safeUrl } from './stage-config';

const BASE = 'https://portal.test/avatar/3';

function fakeFetch(docs: Record<string, unknown>) {
  const calls: string[] = [];
  const fetcher = (async (input: string | URL | Request) => {
    const url = String(input);
    calls.push(url);
    if (!(url in docs)) return new Response('nope', { status: 404 });
    return new Response(JSON.stringify(docs[url]), { status: 200 });
  }) as typeof fetch;
  return { fetcher, calls };
}

describe('avatar config chain', () => {
  it('merges parents first, child values winning, relative parents resolved against the child', async () => {
    const { fetcher } = fakeFetch({
      'https://portal.test/config/avatars/3.json': { ParentConfig: '/catalog/avatar-configs/maya-upper.json', panel: { Enable: true, contentURL: '/catalog/environments/beach.svg' } },
      'https://portal.test/catalog/avatar-configs/maya-upper.json': { ParentConfig: 'base.json', Avatar: { modelURL: '/catalog/models/maya-upper.glb' } },
      'https://portal.test/catalog/avatar-configs/base.json': { Subtitle: { Enabled: true }, panel: { Enable: false, BgColor: '#112233' }, Lights: { preset: 'studio' } },
    });
    const doc = await resolveConfigChain('https://portal.test/config/avatars/3.json', fetcher);
    const stage = readStageConfig(doc, 2, BASE);
    expect(stage.kind).toBe('upper');
    expect(stage.model).toEqual({ url: 'https://portal.test/catalog/models/maya-upper.glb', format: 'glb' });
    expect(stage.background).toEqual({ transparent: false, color: '#112233', image: 'https://portal.test/catalog/environments/beach.svg', video: null });
    expect(stage.subtitles).toBe(true);
  });

  it('stops at cycles and after six documents', async () => {
    const { fetcher, calls } = fakeFetch({
      'https://a.test/1.json': { ParentConfig: 'https://a.test/2.json', x: 1 },
      'https://a.test/2.json': { ParentConfig: 'https://a.test/1.json', y: 2 },
    });
    expect(await resolveConfigChain('https://a.test/1.json', fetcher)).toMatchObject({ x: 1, y: 2 });
    expect(calls).toHaveLength(2);
    const deep = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`https://a.test/d${i}.json`, { ParentConfig: `https://a.test/d${i + 1}.json` }]));
    const second = fakeFetch(deep);
    await resolveConfigChain('https://a.test/d0.json', second.fetcher);
    expect(second.calls).toHaveLength(6);
  });

  it('ignores prototype keys in hostile documents', async () => {
    const { fetcher } = fakeFetch({ 'https://a.test/x.json': JSON.parse('{"__proto__": {"polluted": true}, "Subtitle": {"Enabled": false}}') });
    const doc = await resolveConfigChain('https://a.test/x.json', fetcher);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(readStageConfig(doc, 1, BASE).subtitles).toBe(false);
  });
});

describe('readStageConfig', () => {
  it('transparent wins over the background panel, and videos are told from images', () => {
    const t = readStageConfig({ Scene: { background: 'transparent: true' }, panel: { Enable: true, contentURL: '/x.jpg' } }, 2, BASE);
    expect(t.background).toMatchObject({ transparent: true, image: null, video: null });
    const v = readStageConfig({ panel: { Enable: true, contentURL: 'https://cdn.test/bg.mp4' } }, 2, BASE);
    expect(v.background.video).toBe('https://cdn.test/bg.mp4');
  });

  it('reads the full-body environment with its transform, and refuses unsafe URLs and bad values', () => {
    const s = readStageConfig(
      { Environment: { 'gltf-model': '/catalog/environments/plaza.glb', position: '0 -1 2', rotation: '0 90 0', scale: 'x 2 2', shadow: false }, Lights: { preset: 'warm', intensity: 99 }, Avatar: { modelURL: 'javascript:alert(1)' }, panel: { BgColor: 'red; background:url(x)' } },
      3,
      BASE,
    );
    expect(s.environment).toEqual({ url: 'https://portal.test/catalog/environments/plaza.glb', position: [0, -1, 2], rotation: [0, 90, 0], scale: [1, 2, 2], shadow: false });
    expect(s.lights).toEqual({ preset: 'warm', intensity: 1 });
    expect(s.model).toBeNull();
    expect(s.background.color).toBe('#dbe4f0');
    expect(safeUrl('data:text/html,x', BASE)).toBeNull();
  });

  it('a full body is framed as a medium shot unless the whole figure is asked for', () => {
    expect(readStageConfig({}, 3, BASE).framing).toBe('medium');
    expect(readStageConfig({ Camera: { framing: 'full-body', shot: 'full' } }, 3, BASE).framing).toBe('full');
    // The catalogue's configs name the kind in Camera.framing: that is not a request for the whole figure.
    expect(readStageConfig({ Camera: { framing: 'full-body' } }, 3, BASE).framing).toBe('medium');
    expect(readStageConfig({ Camera: { shot: 'wide' } }, 3, BASE).framing).toBe('medium');
  });

  it('an image avatar is a layered portrait, or a talking photo with its landmarks', () => {
    expect(readStageConfig({ Avatar: { portraitURL: '/catalog/portraits/maya.json' } }, 1, BASE).portrait).toBe('https://portal.test/catalog/portraits/maya.json');
    const pts = (n: number) => Array.from({ length: n }, (_, i) => [100 + i, 200]);
    const photo = readStageConfig({ Avatar: { image: '/files/p.jpg', landmarks: { width: 400, height: 500, mouth: pts(20), jaw: pts(17), leftEye: pts(6), rightEye: pts(6) } } }, 1, BASE);
    expect(photo.photo?.url).toBe('https://portal.test/files/p.jpg');
    expect(photo.photo?.landmarks?.mouth).toHaveLength(20);
    expect(photo.photo?.landmarks?.nose).toBeUndefined();
    const full = readStageConfig({ Avatar: { image: '/files/p.jpg', landmarks: { width: 400, height: 500, mouth: pts(20), jaw: pts(17), leftEye: pts(6), rightEye: pts(6), leftBrow: pts(5), rightBrow: pts(5), nose: pts(9) } } }, 1, BASE);
    expect(full.photo?.landmarks?.leftBrow).toHaveLength(5);
    expect(full.photo?.landmarks?.nose).toHaveLength(9);
    // A brow or nose of the wrong shape is dropped, the rest of the face kept.
    const odd = readStageConfig({ Avatar: { image: '/files/p.jpg', landmarks: { width: 400, height: 500, mouth: pts(20), jaw: pts(17), leftEye: pts(6), rightEye: pts(6), leftBrow: pts(4), rightBrow: pts(5), nose: [[1, 'x']] } } }, 1, BASE);
    expect(odd.photo?.landmarks?.mouth).toHaveLength(20);
    expect(odd.photo?.landmarks?.leftBrow).toBeUndefined();
    expect(odd.photo?.landmarks?.nose).toBeUndefined();
    const bad = readStageConfig({ Avatar: { image: '/files/p.jpg', landmarks: { width: 400, height: 500, mouth: [[1, 'x']] } } }, 1, BASE);
    expect(bad.photo?.landmarks).toBeNull();
    expect(readStageConfig({ Avatar: { modelURL: '/m.vrm' } }, 3, BASE).model).toEqual({ url: 'https://portal.test/m.vrm', format: 'vrm' });
  });
});
