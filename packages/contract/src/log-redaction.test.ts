import { describe, expect, it } from 'vitest';
import { isCredentialParam, REDACTED, redactingLogger, redactLogFields, redactUrl, redactUrlsIn } from './log-redaction.js';

const R = REDACTED;

describe('what a log line shows of a URL (issue 26, item 6)', () => {
  it("redacts the credentials our routes take in their query: a file's signature, the OAuth callback's code and state, a page's token and oauthCode", () => {
    expect(redactUrl('/files/image-requests/7/ab.jpg?expires=1790000000&signature=Zm9vYmFy')).toBe(`/files/image-requests/7/ab.jpg?expires=1790000000&signature=${R}`);
    expect(redactUrl('/api/oauth/callback/3?code=4/0AbCd&state=n0nce&error_description=x')).toBe(`/api/oauth/callback/3?code=${R}&state=${R}&error_description=x`);
    expect(redactUrl('/avatar/12?token=eyJhbGciOi.x.y&hideFS=true&oauthCode=abc&oauthApp=3')).toBe(`/avatar/12?token=${R}&hideFS=true&oauthCode=${R}&oauthApp=3`);
    expect(redactUrl('/react/chatWidget/12?token=eyJ')).toBe(`/react/chatWidget/12?token=${R}`);
    expect(redactUrl('/avatar-ws?ticket=abc.def')).toBe(`/avatar-ws?ticket=${R}`);
    expect(redactUrl('/x?secret=1&client_secret=2&api_key=3&X-Amz-Signature=4&X-Amz-Credential=AKIA%2F5&X-Amz-Date=20260101T000000Z&key=AIza&access_token=t&password=p&sessionId=s')).toBe(
      `/x?secret=${R}&client_secret=${R}&api_key=${R}&X-Amz-Signature=${R}&X-Amz-Credential=${R}&X-Amz-Date=20260101T000000Z&key=${R}&access_token=${R}&password=${R}&sessionId=${R}`,
    );
  });

  it('redacts the codes of the e-mail links, which travel in the path', () => {
    expect(redactUrl('/react/reset-password/9f8e7d6c5b4a')).toBe(`/react/reset-password/${R}`);
    expect(redactUrl('/react/email-verification/9f8e7d6c5b4a?x=1')).toBe(`/react/email-verification/${R}?x=1`);
    expect(redactUrl('https://studio.example.com/react/reset-password/abc')).toBe(`https://studio.example.com/react/reset-password/${R}`);
  });

  it('keeps everything else as it was: the path, harmless parameters, a URL without any', () => {
    for (const url of ['/api/get_avatar?agentId=7', '/knowledge?collection_id=3', '/api/admin/users?search=ann&limit=10&offset=0', '/files/avatars/7/a.png', '/react/avatars', '/api/health', '/x?flag', '/x?a=', '/x?a=%zz']) {
      expect(redactUrl(url), url).toBe(url);
    }
    for (const name of ['expires', 'agentId', 'collection_id', 'returnTo', 'registerTrlEvents', 'hideChatInput', 'search', 'status', 'X-Amz-Date', 'X-Amz-SignedHeaders']) {
      expect(isCredentialParam(name), name).toBe(false);
    }
  });

  it("redacts a parameter's value that is itself a URL, a password in an absolute URL, and a fragment's credentials", () => {
    expect(redactUrl(`/api/oauth/start/3?returnTo=${encodeURIComponent('/avatar/1?token=eyJ&x=1')}`)).toBe(`/api/oauth/start/3?returnTo=${encodeURIComponent(`/avatar/1?token=${R}&x=1`)}`);
    expect(redactUrl('https://user:hunter2@bucket.example/k?X-Amz-Signature=ab')).toBe(`https://user:${R}@bucket.example/k?X-Amz-Signature=${R}`);
    expect(redactUrl('https://app.example/cb#access_token=abc&expires_in=3600')).toBe(`https://app.example/cb#access_token=${R}&expires_in=3600`);
    // Parameter names in any case or encoding.
    expect(redactUrl('/x?TOKEN=a&Signature=b&to%6Ben=c')).toBe(`/x?TOKEN=${R}&Signature=${R}&to%6Ben=${R}`);
  });

  it('finds the URLs in free text (messages, stacks) in linear time', () => {
    expect(redactUrlsIn('GET https://api.example/v1/models?key=AIzaSy failed: 403')).toBe(`GET https://api.example/v1/models?key=${R} failed: 403`);
    expect(redactUrlsIn("'/api/%zz?token=abc' is not a valid url component")).toBe(`'/api/%zz?token=${R}' is not a valid url component`);
    expect(redactUrlsIn('nothing here')).toBe('nothing here');
    const hostile = `${'a'.repeat(200_000)}?`.repeat(5);
    const started = performance.now();
    redactUrlsIn(hostile);
    redactUrl(`/x?${'a=b&'.repeat(50_000)}`);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("redacts a log line's fields and the worker's lines", () => {
    const fields = { server: 'wss://portal.example/api/worker/ws?token=abc', n: 1 };
    expect(redactLogFields(fields)).toEqual({ server: `wss://portal.example/api/worker/ws?token=${R}`, n: 1 });
    const plain = { a: 'x', b: 2 };
    expect(redactLogFields(plain)).toBe(plain);
    const lines: unknown[][] = [];
    const log = redactingLogger({ info: (...a) => lines.push(a), warn: (...a) => lines.push(a), error: (...a) => lines.push(a) });
    log.warn('reconnecting to wss://u:pw@portal.example/?secret=s', { url: '/files/k.txt?signature=x' });
    log.info('registered');
    expect(lines).toEqual([
      [`reconnecting to wss://u:${R}@portal.example/?secret=${R}`, { url: `/files/k.txt?signature=${R}` }],
      ['registered', undefined],
    ]);
  });
});
