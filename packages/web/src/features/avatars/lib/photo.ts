import { AvatarLimits } from '@persona/contract';

export interface PixelArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error('Failed to process given file.'));
    image.src = src;
  });
}

/**
 * Crops the chosen area into a JPEG data URL whose longer side is at most 800 px (an SVG or PNG
 * source becomes a JPEG too: the output is always image/jpeg).
 */
export async function cropToJpeg(src: string, area: PixelArea, maxPx: number = AvatarLimits.avatarPhotoMaxPx): Promise<string> {
  const image = await loadImage(src);
  const scale = Math.min(1, maxPx / Math.max(area.width, area.height));
  const width = Math.max(1, Math.round(area.width * scale));
  const height = Math.max(1, Math.round(area.height * scale));
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('Failed to process given file.');
  context.fillStyle = '#ffffff'; // JPEG has no transparency
  context.fillRect(0, 0, width, height);
  context.drawImage(image, area.x, area.y, area.width, area.height, 0, 0, width, height);
  return canvas.toDataURL('image/jpeg', 0.9);
}

/** 'face.svg' → 'face.jpeg': the cropped photo is a JPEG whatever it was. */
export const jpegName = (name: string) => `${name.replace(/\.[^.]+$/, '') || 'photo'}.jpeg`;
