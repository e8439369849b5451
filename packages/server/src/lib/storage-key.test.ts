import { describe, expect, it } from 'vitest';
import { canonicalKey, storageKey } from './storage-key.js';

const hex = '0123456789abcdef0123456789abcdef';

describe('storage keys have one spelling (issue 26, item 1)', () => {
  it('takes the keys this server makes', () => {
    for (const key of [`knowledge/u7/${hex}.txt`, `image-requests/7/${hex}.jpg`, `avatars/7/${hex}.glb`, 'avatars/7/12-photo-lx3k9.jpg', `custom-avatars/${hex}.png`]) {
      expect(canonicalKey(key), key).toBe(key);
      expect(storageKey(key)).toBe(key);
    }
  });

  it('refuses every other spelling of a key, rather than mapping it onto one', () => {
    const k = `knowledge/u7/${hex}.txt`;
    const others = [
      `/${k}`,
      `//${k}`,
      `///${k}`,
      `%2F${k}`,
      `./${k}`,
      `knowledge//u7/${hex}.txt`,
      `knowledge/./u7/${hex}.txt`,
      `knowledge/u7/../u8/${hex}.txt`,
      `avatars/../${k}`,
      `knowledge%2Fu7%2F${hex}.txt`,
      `knowledge/u7/${hex}%2etxt`,
      `%2e%2e/${k}`,
      `\\${k}`,
      `knowledge\\u7\\${hex}.txt`,
      `${k}\u0000`,
      `${k}\u0000.png`,
      `Knowledge/u7/${hex}.txt`,
      `knowledge/u7/${hex}.TXT`,
      `knowledge/u7/${hex.toUpperCase()}.txt`,
      `knowledge/u7/${hex}.txt/`,
      `${k} `,
      ` ${k}`,
      `knowledge/u7/${hex}.tar.gz`,
      `knowledge/u7/${hex}`,
      `knowledge/u7/.txt`,
      `knowledge/u\u0037/${hex}.txt`.replace('7', '\u0667'),
      `knowledge/u7/${hex}.txt?x=1`,
      `knowledge/u7/${hex}.txt#x`,
      `knowledge/u7;/${hex}.txt`,
      `a/${'b'.repeat(600)}.txt`,
      '',
      '.',
      '..',
      '/',
    ];
    for (const key of others) {
      expect(canonicalKey(key), JSON.stringify(key)).toBeNull();
      expect(() => storageKey(key), JSON.stringify(key)).toThrow('bad storage key');
    }
    expect(canonicalKey(undefined)).toBeNull();
    expect(canonicalKey(7)).toBeNull();
  });
});
