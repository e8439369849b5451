import { describe, expect, it } from 'vitest';
import { AvatarModelBudget, OculusVisemes } from '@persona/contract';
import { modelJson, packGlb, pngHeader } from '../../test/glb.js';
import { imageSize, inspectModel } from './model-check.js';

const ARKIT = ['jawOpen', 'mouthFunnel', 'mouthPucker', 'mouthClose', 'eyeBlinkLeft', 'eyeBlinkRight'];

describe('own avatar model check', () => {
  it('finds the Oculus visemes and blinks of a Ready-Player-Me-style GLB', () => {
    const report = inspectModel(packGlb(modelJson({ vertices: 12_000, targetNames: [...OculusVisemes, 'eyesClosed'] })));
    expect(report).toMatchObject({ format: 'glb', vertices: 12_000, triangles: 12_000, meshes: 1, lipSync: 'oculus', blink: true, warnings: [] });
  });

  it('finds ARKit blend shapes', () => {
    expect(inspectModel(packGlb(modelJson({ targetNames: ARKIT }))).lipSync).toBe('arkit');
  });

  it('reads VRM 1.0 expressions and VRM 0.x blend shape groups', () => {
    const vrm1 = modelJson({ extensions: { VRMC_vrm: { specVersion: '1.0', expressions: { preset: { aa: {}, ih: {}, ou: {}, ee: {}, oh: {}, blink: {} } } } } });
    expect(inspectModel(packGlb(vrm1))).toMatchObject({ format: 'vrm', lipSync: 'vrm', blink: true });
    const groups = ['A', 'I', 'U', 'E', 'O'].map((presetName) => ({ presetName }));
    const vrm0 = modelJson({ extensions: { VRM: { blendShapeMaster: { blendShapeGroups: groups } } } });
    expect(inspectModel(packGlb(vrm0))).toMatchObject({ format: 'vrm', lipSync: 'vrm', blink: false });
  });

  it('keeps a model without mouth shapes but says what it cannot do', () => {
    const report = inspectModel(packGlb(modelJson({ vertices: AvatarModelBudget.comfortableVertices + 1 })));
    expect(report.lipSync).toBe('none');
    expect(report.warnings).toEqual([
      'No mouth shapes found (Oculus visemes, ARKit blend shapes or VRM aa/ih/ou/ee/oh): the avatar will not move its lips.',
      'No blink shapes found: the avatar will not blink.',
      'A heavy model: it may render slowly on phones.',
    ]);
  });

  it('refuses what the page cannot draw: too many vertices, textures too large, no mesh, not glTF 2', () => {
    expect(() => inspectModel(packGlb(modelJson({ vertices: AvatarModelBudget.maxVertices + 1 })))).toThrow(/150,000 can be drawn/);
    const png = pngHeader(8192, 8192);
    const big = modelJson({ images: [{ bufferView: 0 }], bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: png.length }] });
    expect(() => inspectModel(packGlb(big, png))).toThrow('A texture is 8192 px wide; at most 4096 px is allowed.');
    const many = modelJson({ images: Array.from({ length: 33 }, () => ({ bufferView: 0 })), bufferViews: [{ buffer: 0, byteLength: png.length }] });
    expect(() => inspectModel(packGlb(many, pngHeader(16, 16)))).toThrow('The model has 33 textures; at most 32 are allowed.');
    expect(() => inspectModel(packGlb({ asset: { version: '2.0' }, meshes: [] }))).toThrow('The model has no mesh to draw.');
    expect(() => inspectModel(packGlb({ asset: { version: '1.0' }, meshes: [{}] }))).toThrow('Only glTF 2.0 models are supported.');
    expect(() => inspectModel(Buffer.from('not a model at all, really'))).toThrow('The model must be a binary glTF (.glb or .vrm) file.');
  });

  it('refuses a damaged container without reading past it', () => {
    const good = packGlb(modelJson());
    const cut = good.subarray(0, 40);
    expect(() => inspectModel(cut)).toThrow(/damaged/);
    const lying = Buffer.from(good);
    lying.writeUInt32LE(0xffffffff, 12); // JSON chunk length far beyond the file
    expect(() => inspectModel(lying)).toThrow(/damaged/);
  });

  it('reads PNG and JPEG sizes from their headers', () => {
    expect(imageSize(pngHeader(640, 480))).toEqual({ width: 640, height: 480 });
    // SOI, an APP0 segment, then SOF0 with height 300 and width 200.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x00, 0xc8, 0x03, 0, 0, 0, 0, 0, 0]);
    expect(imageSize(jpeg)).toEqual({ width: 200, height: 300 });
    expect(imageSize(Buffer.from([0xff, 0xd8, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
  });
});
