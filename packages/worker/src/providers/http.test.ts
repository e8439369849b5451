import { describe, expect, it } from 'vitest';
import { ProviderError } from '../core/errors.js';
import { errorBodyDetail, errorDetail, httpFailure, refuseWrongAnswer, safeToken } from './http.js';
import { textInsteadOfAudio } from './tts/common.js';

describe("one parser for providers' error bodies", () => {
  it.each([
    ['Deepgram', { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'x' }, 'Invalid credentials.'],
    ['OpenAI / Google / Azure', { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } }, 'Incorrect API key provided.'],
    ['OAuth', { error: 'invalid_grant', error_description: 'Token has expired.' }, 'invalid_grant: Token has expired.'],
    ['plain message', { message: 'quota exceeded' }, 'quota exceeded'],
    ['ElevenLabs detail object', { detail: { status: 'invalid_api_key', message: 'Invalid API key' } }, 'Invalid API key'],
    ['FastAPI detail list', { detail: [{ loc: ['body'], msg: 'field required' }] }, 'field required'],
    ['errors list', { errors: [{ title: 'Bad voice' }] }, 'Bad voice'],
    ['a JSON array', [{ error: { message: 'first' } }], 'first'],
    ['nothing known', { foo: 1 }, ''],
  ])('%s', (_name, body, expected) => {
    expect(errorDetail(body)).toBe(expected);
  });

  it('text bodies: JSON with a message gives the message, anything else the text itself, short', () => {
    expect(errorBodyDetail('{"err_msg":"Bad model."}')).toBe('Bad model.');
    expect(errorBodyDetail('{"unknown": true}')).toBe('{"unknown": true}');
    expect(errorBodyDetail('<html>\n  Bad   Gateway </html>')).toBe('<html> Bad Gateway </html>');
    expect(errorBodyDetail('x'.repeat(1000))).toHaveLength(300);
  });

  it('httpFailure keeps the status and the provider words', async () => {
    const err = await httpFailure('deepgram', new Response('{"err_msg":"Insufficient credit."}', { status: 402 }));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ provider: 'deepgram', status: 402, message: 'HTTP 402: Insufficient credit.' });
  });

  it('safeToken refuses what could change a host name or path', () => {
    expect(safeToken('westeurope', 'region', 'azure', /^[a-z0-9]{2,30}$/)).toBe('westeurope');
    expect(() => safeToken('evil.example.com/#', 'region', 'azure', /^[a-z0-9]{2,30}$/)).toThrow(/region "evil.example.com\/#" is not valid/);
  });

  it('an answer of the wrong kind is refused with what it says: HTML anywhere, documents where audio is expected', async () => {
    const html = new Response('<html><head><title>502 Bad Gateway</title></head><body>x</body></html>', { status: 200, headers: { 'content-type': 'text/html' } });
    await expect(refuseWrongAnswer('cartesia', html, 'stream')).rejects.toMatchObject({ provider: 'cartesia', status: 200, message: 'answered an HTML page instead of a stream (HTTP 200): 502 Bad Gateway' });
    const json = new Response('{"error":{"message":"quota exceeded"}}', { headers: { 'content-type': 'application/json' } });
    await expect(refuseWrongAnswer('azure', json, 'audio')).rejects.toThrow('answered application/json instead of audio (HTTP 200): quota exceeded');
    await expect(refuseWrongAnswer('elevenlabs', new Response('{}', { headers: { 'content-type': 'application/json' } }), 'stream')).resolves.toBeUndefined();
    await expect(refuseWrongAnswer('azure', new Response(new Uint8Array(4), { headers: { 'content-type': 'audio/x-wav' } }), 'audio')).resolves.toBeUndefined();
  });

  it('raw audio that starts like a document is one; speech (near-silence first) is not', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(textInsteadOfAudio(bytes('{"error":"x"}'))).toBe('{"error":"x"}');
    expect(textInsteadOfAudio(bytes('<?xml version="1.0"?><e/>'))).not.toBeNull();
    expect(textInsteadOfAudio(bytes('<!DOCTYPE html>'))).not.toBeNull();
    expect(textInsteadOfAudio(new Uint8Array([0x00, 0x00, 0x7b, 0x22]))).toBeNull();
    expect(textInsteadOfAudio(new Uint8Array([0x3c, 0x00]))).toBeNull();
    expect(textInsteadOfAudio(new Uint8Array([0x7b]))).toBeNull();
  });
});
