import { describe, expect, it } from 'vitest';
import { alphaBox } from './portrait-2d';

/** An RGBA sheet `w`×`h`, transparent but for the pixels given (x, y, alpha). */
function sheet(w: number, h: number, pixels: [number, number, number][]): Uint8ClampedArray {
  const data = new Uint8ClampedArray(w * h * 4);
  for (const [x, y, a] of pixels) data[(y * w + x) * 4 + 3] = a;
  return data;
}

describe('alphaBox: the part of a portrait layer that is drawn', () => {
  it('is the bounding box of every pixel with some alpha, a faint one too', () => {
    expect(alphaBox(sheet(40, 30, [[12, 20, 255], [30, 22, 1], [15, 25, 80]]), 40, 30)).toEqual([12, 20, 19, 6]);
  });

  it('is one pixel for one pixel, at the sheet’s corners too', () => {
    expect(alphaBox(sheet(8, 8, [[0, 0, 10]]), 8, 8)).toEqual([0, 0, 1, 1]);
    expect(alphaBox(sheet(8, 8, [[7, 7, 10]]), 8, 8)).toEqual([7, 7, 1, 1]);
  });

  it('is null for a layer with nothing in it (an empty eyes layer is not drawn)', () => {
    expect(alphaBox(sheet(16, 16, []), 16, 16)).toBeNull();
  });

  it('ignores colour where alpha is zero', () => {
    const data = sheet(10, 10, [[4, 4, 255]]);
    data[(1 * 10 + 1) * 4] = 255; // red, but transparent
    expect(alphaBox(data, 10, 10)).toEqual([4, 4, 1, 1]);
  });
});
