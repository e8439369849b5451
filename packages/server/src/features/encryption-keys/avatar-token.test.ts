import { createPrivateKey, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateEs256KeyPair, mintAvatarToken, verifyAvatarToken } from './avatar-token.js';

const keys = generateEs256KeyPair();
const other = generateEs256KeyPair();
const NOW = new Date('2026-06-01T12:00:00Z');
const nowSeconds = NOW.getTime() / 1000;

/** A token as a customer's own server would make it, following the docs' Node example. */
function handMade(header: object, payload: object, privateKey = keys.privateKey) {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const signingInput = `${b64(header)}.${b64(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: createPrivateKey(privateKey), dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

describe('avatar tokens (ES256 JWT)', () => {
  it('makes P-256 key pairs as PEM', () => {
    expect(keys.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(keys.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(keys.publicKey).not.toBe(other.publicKey);
  });

  it('verifies a token signed with the key, with its claims', () => {
    const token = mintAvatarToken(keys.privateKey, { avatarId: 10001, userId: 'customer-7', expiresInSeconds: 600, keyId: 5 }, NOW);
    expect(token.split('.')).toHaveLength(3);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT', kid: '5' });
    const result = verifyAvatarToken(token, { publicKey: keys.publicKey, avatarId: 10001, now: NOW });
    expect(result).toEqual({ ok: true, claims: { avatarId: 10001, userId: 'customer-7', iat: nowSeconds, exp: nowSeconds + 600 } });
  });

  it('accepts a hand-made token (the docs example) without a user id', () => {
    const token = handMade({ alg: 'ES256', typ: 'JWT' }, { avatarId: 10001, exp: nowSeconds + 60 });
    expect(verifyAvatarToken(token, { publicKey: keys.publicKey, avatarId: 10001, now: NOW }).ok).toBe(true);
  });

  it('refuses a token signed with another key', () => {
    const token = mintAvatarToken(other.privateKey, { avatarId: 10001, expiresInSeconds: 600 }, NOW);
    expect(verifyAvatarToken(token, { publicKey: keys.publicKey, avatarId: 10001, now: NOW })).toEqual({ ok: false, reason: 'signature' });
  });

  it('refuses an expired token (beyond the clock skew) and one not valid yet', () => {
    const token = mintAvatarToken(keys.privateKey, { avatarId: 10001, expiresInSeconds: 60 }, NOW);
    const later = (s: number) => new Date(NOW.getTime() + s * 1000);
    expect(verifyAvatarToken(token, { publicKey: keys.publicKey, now: later(60 + 29) }).ok).toBe(true);
    expect(verifyAvatarToken(token, { publicKey: keys.publicKey, now: later(60 + 31) })).toEqual({ ok: false, reason: 'expired' });
    const future = handMade({ alg: 'ES256' }, { avatarId: 1, exp: nowSeconds + 7200, nbf: nowSeconds + 3600 });
    expect(verifyAvatarToken(future, { publicKey: keys.publicKey, now: NOW })).toEqual({ ok: false, reason: 'not-yet-valid' });
  });

  it('refuses a token for another avatar', () => {
    const token = mintAvatarToken(keys.privateKey, { avatarId: 10002, expiresInSeconds: 600 }, NOW);
    expect(verifyAvatarToken(token, { publicKey: keys.publicKey, avatarId: 10001, now: NOW })).toEqual({ ok: false, reason: 'wrong-avatar' });
  });

  it('refuses tampered claims, alg none/HS256, missing exp and garbage', () => {
    const token = mintAvatarToken(keys.privateKey, { avatarId: 10001, expiresInSeconds: 600 }, NOW);
    const [h, , s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ avatarId: 10002, exp: nowSeconds + 600 })).toString('base64url')}.${s}`;
    expect(verifyAvatarToken(tampered, { publicKey: keys.publicKey, now: NOW })).toEqual({ ok: false, reason: 'signature' });
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect(verifyAvatarToken(none, { publicKey: keys.publicKey, now: NOW }).ok).toBe(false);
    const hs = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${token.split('.')[1]}.${s}`;
    expect(verifyAvatarToken(hs, { publicKey: keys.publicKey, now: NOW })).toEqual({ ok: false, reason: 'algorithm' });
    const noExp = handMade({ alg: 'ES256' }, { avatarId: 10001 });
    expect(verifyAvatarToken(noExp, { publicKey: keys.publicKey, now: NOW })).toEqual({ ok: false, reason: 'claims' });
    for (const junk of ['', 'a.b', 'a.b.c.d', '!!.??.**', 'x'.repeat(9000)]) {
      expect(verifyAvatarToken(junk, { publicKey: keys.publicKey, now: NOW }).ok).toBe(false);
    }
    expect(verifyAvatarToken(token, { publicKey: 'not a pem', now: NOW })).toEqual({ ok: false, reason: 'signature' });
  });
});
