import { describe, expect, it } from 'vitest';
import { cataloguePicture } from './catalogue-picture.js';

describe('the catalogue picture of an avatar without a photo', () => {
  it('is the thumbnail of the catalogue look its avatar JSON inherits', () => {
    expect(cataloguePicture(JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }))).toBe('/catalog/thumbs/maya-upper.png');
    // Absolute or relative to the portal, the same look.
    expect(cataloguePicture(JSON.stringify({ ParentConfig: 'https://portal.example/catalog/avatar-configs/leo-image.json' }))).toBe('/catalog/thumbs/leo-image.png');
  });

  it('is none for an own model, another parent, or a document that is not one', () => {
    expect(cataloguePicture(JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Avatar: { modelURL: '/files/me.vrm' } }))).toBeNull();
    expect(cataloguePicture(JSON.stringify({ ParentConfig: 'https://cdn.example/mine.json' }))).toBeNull();
    expect(cataloguePicture('')).toBeNull();
    expect(cataloguePicture('{not json')).toBeNull();
    expect(cataloguePicture('[1]')).toBeNull();
  });
});
