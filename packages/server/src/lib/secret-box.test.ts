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
});
