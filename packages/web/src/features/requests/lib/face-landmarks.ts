import type { TPhotoLandmarks } from '@persona/contract';

/**
 * Finds the face of a finished image avatar once, in the administrator's browser, when it is
 * attached: the avatar page then moves the mouth region of the photo from these points (talking
 * photos). face-api and its two small models (tiny face detector 190 KB, 68-point
 * landmarks 350 KB) come from the npm package and load only when an admin attaches a photo.
 */

type Point = { x: number; y: number };

/** dlib's 68 points → what the renderer reads (jaw 0–16, brows 17–21/22–26, nose 27–35, eyes 36–41/42–47, mouth 48–67). */
export function toPhotoLandmarks(points: Point[], width: number, height: number): TPhotoLandmarks | null {
  if (points.length !== 68 || !(width > 0 && height > 0)) return null;
  const clamp = (v: number, max: number) => Math.round(Math.min(Math.max(v, 0), max) * 10) / 10;
  const pick = (from: number, to: number) => points.slice(from, to + 1).map((p) => [clamp(p.x, width), clamp(p.y, height)] as [number, number]);
  return {
    width: Math.round(width),
    height: Math.round(height),
    jaw: pick(0, 16),
    leftEye: pick(36, 41),
    rightEye: pick(42, 47),
    mouth: pick(48, 67),
    leftBrow: pick(17, 21),
    rightBrow: pick(22, 26),
    nose: pick(27, 35),
  };
}

type FaceApi = Awaited<ReturnType<typeof loadFaceApi>>;
let ready: Promise<FaceApi> | null = null;

async function loadFaceApi() {
  const faceapi = await import('@vladmandic/face-api');
  const [detectorManifest, landmarkManifest, detectorBin, landmarkBin] = await Promise.all([
    import('@vladmandic/face-api/model/tiny_face_detector_model-weights_manifest.json'),
    import('@vladmandic/face-api/model/face_landmark_68_model-weights_manifest.json'),
    import('@vladmandic/face-api/model/tiny_face_detector_model.bin?url'),
    import('@vladmandic/face-api/model/face_landmark_68_model.bin?url'),
  ]);
  const weights = async (manifest: { default: { weights: unknown[] }[] }, url: string) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`face model: HTTP ${res.status}`);
    const specs = manifest.default.flatMap((group) => group.weights) as Parameters<typeof faceapi.tf.io.decodeWeights>[1];
    return faceapi.tf.io.decodeWeights(await res.arrayBuffer(), specs);
  };
  // The backend (WebGL, else CPU) must be chosen before weights become tensors.
  const tf = faceapi.tf as unknown as { ready(): Promise<void>; setBackend(name: string): Promise<boolean>; getBackend(): string };
  await tf.ready();
  faceapi.nets.tinyFaceDetector.loadFromWeightMap(await weights(detectorManifest, detectorBin.default));
  faceapi.nets.faceLandmark68Net.loadFromWeightMap(await weights(landmarkManifest, landmarkBin.default));
  return faceapi;
}

const SEARCH_TIMEOUT_MS = 60_000;
/** Searched at this size at most (the points are relative to the size they are given with). */
const MAX_SIDE = 640;

/** The landmarks of the one clear face in the image, or null when none is found. */
export async function findFaceLandmarks(file: Blob): Promise<TPhotoLandmarks | null> {
  // A browser without a usable backend must not hold the dialog: give up and say so.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('face search timed out')), SEARCH_TIMEOUT_MS);
  });
  try {
    return await Promise.race([search(file), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function search(file: Blob): Promise<TPhotoLandmarks | null> {
  ready ??= loadFaceApi().catch((err: unknown) => {
    ready = null;
    throw err;
  });
  const faceapi = await ready;
  const bitmap = await createImageBitmap(file);
  try {
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const result = await faceapi.detectSingleFace(canvas, new faceapi.TinyFaceDetectorOptions({ inputSize: 320, scoreThreshold: 0.5 })).withFaceLandmarks();
    if (!result) return null;
    return toPhotoLandmarks(result.landmarks.positions, canvas.width, canvas.height);
  } finally {
    bitmap.close();
  }
}
