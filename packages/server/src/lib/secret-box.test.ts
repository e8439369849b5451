import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.js';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32).toString('hex'));

  it('round-trips and never shows the plain text', () => {
    const sealed = box.seal('sk-live-very-secret');
    expect(sealed).not.toContain('sk-live');
    expect(box.isSealed(sealed)).toBe(true);
    expect(box.open(sealed)).toBe('sk-live-very-secret');
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses tampered values and other keys', () => {
    const sealed = box.seal('secret');
    const parts = sealed.split(':');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join(':'))).toThrow();
    expect(() => createSecretBox(randomBytes(32).toString('base64')).open(sealed)).toThrow();
  });

  it('insists on the full 16-byte tag and a 12-byte IV (a short tag would make forging cheap)', () => {
    const sealed = box.seal('{"n":"nonce","a":1}');
    const [version, iv, tag, data] = sealed.split(':') as [string, string, string, string];
    const fullTag = Buffer.from(tag, 'base64url');
    expect(fullTag).toHaveLength(16);
    for (const length of [1, 4, 8, 12, 15]) {
      const short = [version, iv, fullTag.subarray(0, length).toString('base64url'), data].join(':');
      expect(() => box.open(short)).toThrow();
    }
    const longIv = [version, Buffer.concat([Buffer.from(iv, 'base64url'), Buffer.alloc(4)]).toString('base64url'), tag, data].join(':');
    expect(() => box.open(longIv)).toThrow();
  });
});
