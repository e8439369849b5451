import { describe, expect, it } from 'vitest';
import { ProviderError } from '../brains/types.js';
import { errorBodyDetail, errorDetail, httpFailure, safeToken } from './http.js';

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
});
