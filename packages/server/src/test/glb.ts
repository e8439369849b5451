/**
 * Binary glTF containers for tests: a JSON document (and an optional BIN chunk) packed as the
 * spec lays them out, so the upload check sees exactly what a real exporter writes.
 */
export function packGlb(json: Record<string, unknown>, bin?: Buffer): Buffer {
  const pad = (b: Buffer, fill: number) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);
  const jsonChunk = pad(Buffer.from(JSON.stringify(json)), 0x20);
  const binChunk = bin ? pad(bin, 0) : null;
  const header = (length: number, type: number) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(length, 0);
    h.writeUInt32LE(type, 4);
    return h;
  };
  const parts = [header(jsonChunk.length, 0x4e4f534a), jsonChunk, ...(binChunk ? [header(binChunk.length, 0x004e4942), binChunk] : [])];
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(12 + body.length, 8);
  return Buffer.concat([head, body]);
}

/** A PNG header (signature + IHDR) of the given size: enough for a size check. */
export function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

/** A model document: one mesh of `vertices` vertices, the given morph target names and extras. */
export function modelJson({ vertices = 1000, targetNames = [] as string[], extensions, images = [] as { bufferView: number }[], bufferViews = [] as object[] }: {
  vertices?: number;
  targetNames?: string[];
  extensions?: Record<string, unknown>;
  images?: { bufferView: number }[];
  bufferViews?: object[];
} = {}): Record<string, unknown> {
  return {
    asset: { version: '2.0', generator: 'persona-test' },
    accessors: [
      { componentType: 5126, count: vertices, type: 'VEC3' },
      { componentType: 5125, count: vertices * 3, type: 'SCALAR' },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }], extras: { targetNames } }],
    ...(images.length ? { images, bufferViews, buffers: [{ byteLength: 1 }] } : {}),
    ...(extensions ? { extensions, extensionsUsed: Object.keys(extensions) } : {}),
  };
}
