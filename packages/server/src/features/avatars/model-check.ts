import { AvatarModelBudget, OculusVisemes, type TAvatarModelReport } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';

/**
 * Checks a customer's own avatar model (.glb, or .vrm which is a .glb with the VRM extension)
 * before it is kept: the container, the vertex and texture budget the avatar page can draw, and
 * what it can do (mouth shapes for lip-sync, blinking). Everything read is bounded: the JSON
 * chunk by size, every list by count, image headers by a fixed scan.
 */

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
const MAX_JSON_BYTES = 8 * 1024 * 1024;
const MAX_LIST = 10_000;
const MAX_NAMES = 400;

const ARKIT_MOUTH = ['jawOpen', 'mouthFunnel', 'mouthPucker', 'mouthClose'];
const ARKIT_BLINK = ['eyeBlinkLeft', 'eyeBlinkRight'];
const VRM1_MOUTH = ['aa', 'ih', 'ou', 'ee', 'oh'];
const VRM0_MOUTH = ['a', 'i', 'u', 'e', 'o'];

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v.slice(0, MAX_LIST) : []);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);

export class ModelRefused extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

/** Width and height from a PNG or JPEG header (null for other formats or a damaged header). */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    // Walk the JPEG segments (each jump is forward, so this is linear) to the first SOFn.
    let i = 2;
    const end = Math.min(bytes.length, 4 * 1024 * 1024);
    while (i + 9 < end) {
      if (bytes[i] !== 0xff) return null;
      const marker = bytes[i + 1]!;
      if (marker === 0xff) {
        i += 1;
        continue;
      }
      const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
      const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isSof) return { height: (bytes[i + 5]! << 8) | bytes[i + 6]!, width: (bytes[i + 7]! << 8) | bytes[i + 8]! };
      if (length < 2) return null;
      i += 2 + length;
    }
  }
  return null;
}

function parseContainer(file: Buffer): { json: Json; bin: Buffer | null } {
  if (file.length < 20 || file.readUInt32LE(0) !== GLB_MAGIC) throw new ModelRefused('The model must be a binary glTF (.glb or .vrm) file.');
  if (file.readUInt32LE(4) !== 2) throw new ModelRefused('Only glTF 2.0 models are supported.');
  const total = Math.min(file.readUInt32LE(8), file.length);
  const jsonLength = file.readUInt32LE(12);
  if (file.readUInt32LE(16) !== CHUNK_JSON || jsonLength > MAX_JSON_BYTES || 20 + jsonLength > total) {
    throw new ModelRefused('The model file is damaged (its JSON chunk is missing or too large).');
  }
  let json: unknown;
  try {
    json = JSON.parse(file.subarray(20, 20 + jsonLength).toString('utf8'));
  } catch {
    throw new ModelRefused('The model file is damaged (its JSON chunk is not valid JSON).');
  }
  if (!isRecord(json)) throw new ModelRefused('The model file is damaged (its JSON chunk is not an object).');
  let bin: Buffer | null = null;
  const binAt = 20 + jsonLength + ((4 - (jsonLength % 4)) % 4);
  if (binAt + 8 <= total && file.readUInt32LE(binAt + 4) === CHUNK_BIN) {
    const binLength = file.readUInt32LE(binAt);
    bin = file.subarray(binAt + 8, Math.min(total, binAt + 8 + binLength));
  }
  return { json, bin };
}

/** The bytes of an embedded image (bufferView into the BIN chunk); null for external URIs. */
function embeddedImage(json: Json, bin: Buffer | null, image: unknown): Uint8Array | null {
  if (!bin || !isRecord(image) || typeof image.bufferView !== 'number') return null;
  const view = list(json.bufferViews)[image.bufferView];
  if (!isRecord(view) || int(view.buffer) !== 0) return null;
  const start = int(view.byteOffset);
  const length = int(view.byteLength);
  if (start + length > bin.length) return null;
  return bin.subarray(start, start + Math.min(length, 4 * 1024 * 1024));
}

/** Reads what the model holds and can do; refuses what the avatar page could not draw. */
export function inspectModel(file: Buffer): TAvatarModelReport {
  const { json, bin } = parseContainer(file);
  const asset = isRecord(json.asset) ? json.asset : {};
  if (typeof asset.version !== 'string' || !asset.version.startsWith('2.')) throw new ModelRefused('Only glTF 2.0 models are supported.');
  const accessors = list(json.accessors);
  const meshes = list(json.meshes);
  if (meshes.length === 0) throw new ModelRefused('The model has no mesh to draw.');

  // Vertices and triangles: each POSITION accessor counted once (primitives may share them).
  const counted = new Set<number>();
  let vertices = 0;
  let triangles = 0;
  const morphNames = new Set<string>();
  for (const mesh of meshes) {
    if (!isRecord(mesh)) continue;
    const names = isRecord(mesh.extras) ? list(mesh.extras.targetNames) : [];
    for (const name of names) if (typeof name === 'string' && morphNames.size < MAX_NAMES) morphNames.add(name.slice(0, 80));
    for (const primitive of list(mesh.primitives)) {
      if (!isRecord(primitive) || !isRecord(primitive.attributes)) continue;
      const position = primitive.attributes.POSITION;
      const positionCount = typeof position === 'number' && isRecord(accessors[position]) ? int((accessors[position] as Json).count) : 0;
      if (typeof position === 'number' && !counted.has(position)) {
        counted.add(position);
        vertices += positionCount;
      }
      const mode = primitive.mode === undefined ? 4 : primitive.mode;
      if (mode === 4) {
        const indices = typeof primitive.indices === 'number' && isRecord(accessors[primitive.indices]) ? int((accessors[primitive.indices] as Json).count) : positionCount;
        triangles += Math.floor(indices / 3);
      }
    }
  }
  if (vertices > AvatarModelBudget.maxVertices) {
    throw new ModelRefused(`The model has ${vertices.toLocaleString('en-US')} vertices; at most ${AvatarModelBudget.maxVertices.toLocaleString('en-US')} can be drawn smoothly.`);
  }

  // Textures: how many, and their pixel sizes where the image is embedded.
  const images = list(json.images);
  let maxTextureSide = 0;
  let texturePixels = 0;
  for (const image of images) {
    const bytes = embeddedImage(json, bin, image);
    const size = bytes ? imageSize(bytes) : null;
    if (!size) continue;
    maxTextureSide = Math.max(maxTextureSide, size.width, size.height);
    texturePixels += size.width * size.height;
  }
  if (images.length > AvatarModelBudget.maxTextures) {
    throw new ModelRefused(`The model has ${images.length} textures; at most ${AvatarModelBudget.maxTextures} are allowed.`);
  }
  if (maxTextureSide > AvatarModelBudget.maxTextureSide) {
    throw new ModelRefused(`A texture is ${maxTextureSide} px wide; at most ${AvatarModelBudget.maxTextureSide} px is allowed.`);
  }
  if (texturePixels > AvatarModelBudget.maxTextureMegapixels * 1_000_000) {
    throw new ModelRefused(`The textures hold ${(texturePixels / 1_000_000).toFixed(1)} megapixels; at most ${AvatarModelBudget.maxTextureMegapixels} are allowed.`);
  }

  // What it can do: VRM expressions, Oculus visemes or ARKit blend shapes.
  const extensions = isRecord(json.extensions) ? json.extensions : {};
  const vrm1 = isRecord(extensions.VRMC_vrm) ? extensions.VRMC_vrm : null;
  const vrm0 = isRecord(extensions.VRM) ? extensions.VRM : null;
  let format: TAvatarModelReport['format'] = 'glb';
  let lipSync: TAvatarModelReport['lipSync'] = 'none';
  let blink = false;
  if (vrm1 || vrm0) {
    format = 'vrm';
    const presets = new Set<string>();
    if (vrm1 && isRecord(vrm1.expressions) && isRecord(vrm1.expressions.preset)) for (const key of Object.keys(vrm1.expressions.preset).slice(0, MAX_NAMES)) presets.add(key);
    if (vrm0 && isRecord(vrm0.blendShapeMaster)) {
      for (const group of list(vrm0.blendShapeMaster.blendShapeGroups)) if (isRecord(group) && typeof group.presetName === 'string') presets.add(group.presetName.toLowerCase());
    }
    if (VRM1_MOUTH.every((p) => presets.has(p)) || VRM0_MOUTH.every((p) => presets.has(p))) lipSync = 'vrm';
    blink = presets.has('blink');
  }
  if (lipSync === 'none') {
    const oculus = OculusVisemes.filter((v) => morphNames.has(v)).length;
    if (oculus >= 10) lipSync = 'oculus';
    else if (ARKIT_MOUTH.every((n) => morphNames.has(n))) lipSync = 'arkit';
  }
  blink ||= morphNames.has('eyesClosed') || morphNames.has('eyeBlink') || ARKIT_BLINK.every((n) => morphNames.has(n));

  const warnings: string[] = [];
  if (lipSync === 'none') warnings.push('No mouth shapes found (Oculus visemes, ARKit blend shapes or VRM aa/ih/ou/ee/oh): the avatar will not move its lips.');
  if (!blink) warnings.push('No blink shapes found: the avatar will not blink.');
  if (vertices > AvatarModelBudget.comfortableVertices) warnings.push('A heavy model: it may render slowly on phones.');

  return {
    format,
    vertices,
    triangles,
    meshes: meshes.length,
    textures: images.length,
    maxTextureSide,
    morphTargets: morphNames.size,
    lipSync,
    blink,
    warnings,
  };
}
