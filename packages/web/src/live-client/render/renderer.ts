import type { TAvatarAction } from '@persona/contract';
import type { FaceState } from './face-driver';

/** What the stage asks of each way of drawing an avatar (2D portrait, talking photo, three.js). */
export interface AvatarRenderer {
  readonly name: 'portrait' | 'photo' | 'three';
  readonly canvas: HTMLCanvasElement;
  /** Draws one frame. */
  render(face: FaceState, nowMs: number): void;
  /** CSS size of the stage. */
  resize(width: number, height: number): void;
  /**
   * Draws at `scale` × its own pixel ratio from the next frame (the canvas keeps its CSS size):
   * the adaptive resolution of a renderer that pays per pixel (three.js; render-scale.ts).
   */
  setRenderScale?(scale: number): void;
  /** The model's targets as last written (name → weight), for the test hook. */
  readonly targets: ReadonlyMap<string, number>;
  /** `anim` and `morph` actions on the model's own clips and targets (uploaded 3D models); false when it has no such clip or target. */
  act?(action: Extract<TAvatarAction, { kind: 'anim' | 'morph' }>, nowMs: number): boolean;
  /** The model's clips playing now (the test hook). */
  playing?(): string[];
  dispose(): void;
}

/** An image the page may draw on a canvas without tainting it (same origin or CORS). */
export function loadImage(url: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.crossOrigin = 'anonymous';
    img.decoding = 'async';
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(`image ${url} did not load`));
    img.src = url;
  });
}

/** Device pixels for a canvas of this CSS size (capped: the stage is small, fill rate matters). */
export function sizeCanvas(canvas: HTMLCanvasElement, width: number, height: number, maxDpr = 2): number {
  const dpr = Math.min(maxDpr, Math.max(1, window.devicePixelRatio || 1));
  canvas.width = Math.max(1, Math.round(width * dpr));
  canvas.height = Math.max(1, Math.round(height * dpr));
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  return dpr;
}
