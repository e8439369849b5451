import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../core/errors.js';
import { createGuardedFetch } from '@persona/net';
import { GOOGLE_API_KEY, loudFrames as loud, quietFrames as quiet } from '../../test/fake-stt.js';
import { startFakeGoogleSpeech, type FakeGoogleSpeech } from '../../test/fake-stt-google.js';
import { GrpcReader, grpcFrame, ProtoWriter, readProto } from '../google/grpc.js';
import { createGoogleStt, googleModel, readGoogleResponse, ROTATE_STREAM_MS, type GoogleSttSettings } from './google.js';
import type { SttOptions, SttResult } from './types.js';
import { until } from '../../test/until.js';

const fetch = createGuardedFetch({ allowPrivate: true });
let fake: FakeGoogleSpeech;
beforeAll(async () => {
  fake = await startFakeGoogleSpeech();
});
afterAll(async () => {
  fetch.close();
  await fake.close();
});
afterEach(() => {
  fake.streams.length = 0;
  fake.knobs = {};
});


async function open(over: Partial<GoogleSttSettings> = {}, opts: Partial<SttOptions> = {}) {
  const results: SttResult[] = [];
  const errors: Error[] = [];
  const ctl = new AbortController();
  const engine = createGoogleStt({ apiKey: GOOGLE_API_KEY, baseUrl: fake.origin, fetch, ...over });
  const session = await engine.open({ languages: ['en-US'], interim: true, sampleRate: 16_000, signal: ctl.signal, ...opts }, { onResult: (r) => results.push(r), onError: (e) => errors.push(e) });
  const say = (frames: Int16Array[]) => {
    for (const f of frames) session.push(f);
  };
  return { session, results, errors, ctl, say };
}

describe('Google STT (v1 StreamingRecognize over gRPC)', () => {
  it('one stream per utterance: the streaming_config first (LINEAR16 16 kHz mono, languages, model, phrases, interim results), then the audio; the key in x-goog-api-key', async () => {
    const { session, say, errors } = await open({}, { languages: ['fr-FR', 'en-US', 'de-DE', 'es-ES', 'it-IT'], model: 'long', phrases: ['Persona Studio', ' ', 'Nova'] });
    say(loud(400));
    await session.finalize();
    expect(errors).toEqual([]);
    const st = fake.streams[0]!;
    expect(st.headers['x-goog-api-key']).toBe(GOOGLE_API_KEY);
    expect(st.headers.authorization).toBeUndefined();
    expect(st.config).toEqual({ encoding: 1, sampleRate: 16000, language: 'fr-FR', channels: 1, punctuation: true, model: 'latest_long', phrases: ['Persona Studio', 'Nova'], alternatives: ['en-US', 'de-DE', 'es-ES'], interim: true });
    expect(st).toMatchObject({ samples: 6400, halfClosed: true, violations: [] });
    await until(() => st.closed);
    session.close();
  });

  it('interim results while the visitor speaks, the final one when the stream is half-closed; the next utterance is a new stream with its times counted from the session start', async () => {
    const { session, say, results } = await open();
    say(loud(1100));
    await until(() => results.length === 2);
    expect(results).toEqual([
      { text: 'hearing 8000 samples', final: false },
      { text: 'hearing 16000 samples', final: false },
    ]);
    await session.finalize();
    expect(results.at(-1)).toEqual({ text: 'heard 17600 samples', final: true, endMs: 1100, language: 'en-us' });
    say(quiet(100));
    say(loud(200));
    await session.finalize();
    expect(fake.streams).toHaveLength(2);
    expect(results.at(-1)).toEqual({ text: 'heard 3200 samples', final: true, endMs: 1400, language: 'en-us' });
    session.close();
  });

  it('interim results are not passed on when not wanted; silence gives no result', async () => {
    const { session, say, results, errors } = await open({}, { interim: false });
    say(loud(1100));
    await session.finalize();
    say(quiet(300));
    await session.finalize();
    expect(results.map((r) => r.final)).toEqual([true]);
    expect(errors).toEqual([]);
    session.close();
  });

  it('audio after a finalize goes to the next stream while the last one finishes', async () => {
    const { session, say, results } = await open({}, { interim: false });
    say(loud(300));
    const first = session.finalize();
    say(loud(100));
    const second = session.finalize();
    await Promise.all([first, second]);
    expect(results.map((r) => r.text)).toEqual(['heard 4800 samples', 'heard 1600 samples']);
    expect(fake.streams.map((s) => [s.samples, s.violations.length])).toEqual([
      [4800, 0],
      [1600, 0],
    ]);
    session.close();
  });

  it('a service-account key: the JWT is exchanged at its token_uri, the token sent as Bearer and reused', async () => {
    const { session, say, errors, results } = await open({ apiKey: fake.serviceAccountJson });
    say(loud(300));
    await session.finalize();
    say(loud(300));
    await session.finalize();
    expect(errors).toEqual([]);
    expect(results.filter((r) => r.final)).toHaveLength(2);
    expect(fake.streams.map((s) => s.headers['x-goog-api-key'])).toEqual([undefined, undefined]);
    const tokens = fake.streams.map((s) => String(s.headers.authorization).replace('Bearer ', ''));
    expect(new Set(tokens).size).toBe(1);
    expect(fake.issued.has(tokens[0]!)).toBe(true);
    session.close();
  });

  it('a wrong key: the trailers-only answer (UNAUTHENTICATED) is a ProviderError 401 with its message', async () => {
    const { session, say, errors } = await open({ apiKey: 'nope' });
    say(loud(100));
    await until(() => errors.length > 0);
    expect(errors[0]).toBeInstanceOf(ProviderError);
    expect(errors[0]).toMatchObject({ provider: 'google', status: 401 });
    expect(errors[0]!.message).toContain('invalid authentication credentials');
    session.close();
  });

  it('a failed stream (RESOURCE_EXHAUSTED) ends the session with a ProviderError 429', async () => {
    fake.knobs = { status: 8 };
    const { session, say, errors } = await open();
    say(loud(200));
    await session.finalize();
    expect(errors[0]).toMatchObject({ provider: 'google', status: 429 });
  });

  it("Google's stream time limit (OUT_OF_RANGE) on a stream nobody waits for just ends it: the next audio opens another", async () => {
    const { session, say, results, errors } = await open({}, { interim: false });
    say(quiet(200));
    await until(() => fake.streams[0]?.samples === 3200);
    fake.endStreams(11, 'Exceeded maximum allowed stream duration of 305 seconds.');
    await until(() => fake.streams[0]!.closed);
    say(loud(200));
    await session.finalize();
    expect(errors).toEqual([]);
    expect(fake.streams).toHaveLength(2);
    expect(results.map((r) => r.text)).toEqual(['heard 3200 samples']);
    session.close();
  });

  it('a server draining its connection (GOAWAY) mid-utterance: that stream is closed with its results, the rest goes on a new connection', async () => {
    const made = fake.sessionsMade();
    const { session, say, results, errors } = await open({}, { interim: false });
    say(loud(300));
    await until(() => fake.streams[0]?.samples === 4800);
    fake.goaway();
    await until(() => fake.streams[0]!.halfClosed);
    say(loud(200));
    await session.finalize();
    expect(errors).toEqual([]);
    expect(results.map((r) => r.text)).toEqual(['heard 4800 samples', 'heard 3200 samples']);
    expect(fake.sessionsMade() - made).toBe(2);
    session.close();
  });

  it('a finalize also waits for a stream still finishing (replaced at a GOAWAY) when no new audio came', async () => {
    fake.knobs = { delayEndMs: 150 };
    const { session, say, results, errors } = await open({}, { interim: false });
    say(loud(300));
    await until(() => fake.streams[0]?.samples === 4800);
    fake.goaway();
    await until(() => fake.streams[0]!.halfClosed);
    await session.finalize();
    expect(errors).toEqual([]);
    expect(results.map((r) => r.text)).toEqual(['heard 4800 samples']);
    session.close();
  });

  it('a stream half-closed at a GOAWAY that never ends: the finalize waiting on it gives up after finalizeMs (the session fails)', async () => {
    fake.knobs = { delayEndMs: 3000 };
    const { session, say, errors } = await open({ timeouts: { finalizeMs: 150 } }, { interim: false });
    say(loud(300));
    await until(() => fake.streams[0]?.samples === 4800);
    fake.goaway();
    await until(() => fake.streams[0]!.halfClosed);
    const t0 = Date.now();
    await session.finalize();
    // Gave up at its bound rather than never (the other side never answers); how soon a busy machine runs the timer is not the test (issue 26, item 16).
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(errors[0]!.message).toMatch(/timed out: the stream did not end/);
  });

  it(`streams are replaced after ${ROTATE_STREAM_MS / 1000} s (Google ends them at about 305 s); the old one's results still come`, async () => {
    let clock = 1_000_000;
    const { session, say, results, errors } = await open({ now: () => clock }, { interim: false });
    say(loud(100));
    clock += ROTATE_STREAM_MS;
    say(loud(200));
    await until(() => fake.streams.length === 2 && fake.streams[0]!.halfClosed);
    await session.finalize();
    expect(errors).toEqual([]);
    expect(results.map((r) => r.text)).toEqual(['heard 1600 samples', 'heard 3200 samples']);
    session.close();
  });

  it('an error in a response, and an HTTP status other than 200, fail the session', async () => {
    fake.knobs = { errorResponse: { code: 3, message: 'Invalid recognition config' } };
    const a = await open();
    a.say(loud(100));
    await until(() => a.errors.length > 0);
    expect(a.errors[0]).toMatchObject({ provider: 'google', status: 400, message: expect.stringContaining('Invalid recognition config') });
    fake.knobs = { httpStatus: 502 };
    const b = await open();
    b.say(loud(100));
    await until(() => b.errors.length > 0);
    expect(b.errors[0]).toMatchObject({ provider: 'google', status: 502 });
  });

  it('a stream that is never answered: finalize gives up after finalizeMs and the session fails (it is stuck)', async () => {
    fake.knobs = { silent: true };
    const { session, say, errors } = await open({ timeouts: { finalizeMs: 150 } });
    say(loud(200));
    const t0 = Date.now();
    await session.finalize();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(errors[0]!.message).toMatch(/timed out: the stream did not end/);
  });

  it('an answer that is not protobuf fails the session; so does a dropped connection', async () => {
    fake.knobs = { garbage: true };
    const a = await open();
    a.say(loud(600));
    await until(() => a.errors.length > 0);
    expect(a.errors[0]!.message).toMatch(/unreadable answer/);
    fake.knobs = { dropAfterBytes: 3200 };
    const b = await open();
    b.say(loud(200));
    await until(() => b.errors.length > 0);
    expect(b.errors[0]).toBeInstanceOf(ProviderError);
  });

  it('a connection that cannot be made fails at open; a region is checked as a host label; close and the signal end everything', async () => {
    await expect(open({ baseUrl: 'http://127.0.0.1:1' })).rejects.toBeInstanceOf(ProviderError);
    await expect(open({ baseUrl: undefined, region: 'evil.example.com/#' })).rejects.toThrow(/region/);
    await expect(open({}, { languages: ['en US'] })).rejects.toThrow(/language/);
    await expect(open({ apiKey: '{"client_email": "x"}' })).rejects.toThrow(/private_key/);
    const a = await open();
    a.say(loud(100));
    await until(() => fake.streams.length === 1);
    a.session.close();
    await until(() => fake.streams[0]!.closed);
    const b = await open();
    b.say(loud(100));
    await until(() => fake.streams.length === 2);
    b.ctl.abort();
    await until(() => fake.streams[1]!.closed);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('maps the Brain tab models to v1 names', () => {
    expect(googleModel('short')).toBe('latest_short');
    expect(googleModel('telephony')).toBe('telephony');
    expect(googleModel('chirp_2')).toBe('latest_long');
    expect(googleModel(undefined)).toBeUndefined();
  });
});

describe('protobuf and gRPC framing', () => {
  it('writes and reads varints, strings, nested messages and repeated fields', () => {
    const msg = new ProtoWriter().uint(1, 300).uint(2, 2 ** 40).string(3, 'héllo').message(4, new ProtoWriter().string(1, 'a').string(1, 'b')).bool(5, true).finish();
    const f = readProto(msg);
    expect(f.get(1)).toEqual([300]);
    expect(f.get(2)).toEqual([2 ** 40]);
    expect((f.get(3)![0] as Buffer).toString('utf8')).toBe('héllo');
    expect(readProto(f.get(4)![0] as Buffer).get(1)!.map((b) => (b as Buffer).toString())).toEqual(['a', 'b']);
    expect(() => readProto(Buffer.from([0x0a, 0x05, 0x61]))).toThrow(/truncated/);
  });

  it('splits gRPC messages across chunks and refuses compressed or oversized ones', () => {
    const r = new GrpcReader(100);
    const two = Buffer.concat([grpcFrame(Buffer.from('abc')), grpcFrame(Buffer.from('defg'))]);
    expect(r.push(two.subarray(0, 6)).map(String)).toEqual([]);
    expect(r.push(two.subarray(6)).map(String)).toEqual(['abc', 'defg']);
    expect(() => new GrpcReader(100).push(Buffer.from([1, 0, 0, 0, 1, 0]))).toThrow(/compressed/);
    expect(() => new GrpcReader(10).push(Buffer.from([0, 0, 0, 1, 0]))).toThrow(/256 bytes/);
  });

  it('reads a StreamingRecognizeResponse: a final result, interim ones, its error', () => {
    const alt = (t: string) => new ProtoWriter().string(1, t);
    const end = new ProtoWriter().uint(1, 2).uint(2, 500_000_000);
    const res = new ProtoWriter()
      .message(2, new ProtoWriter().message(1, alt('to be or not to be')).bool(2, true).message(4, end).string(6, 'en-us'))
      .message(2, new ProtoWriter().message(1, alt(' that is')))
      .finish();
    expect(readGoogleResponse(res)).toEqual({
      results: [
        { transcript: 'to be or not to be', isFinal: true, endMs: 2500, language: 'en-us' },
        { transcript: ' that is', isFinal: false },
      ],
    });
    const err = new ProtoWriter().message(1, new ProtoWriter().uint(1, 3).string(2, 'bad config')).finish();
    expect(readGoogleResponse(err)).toEqual({ error: { code: 3, message: 'bad config' }, results: [] });
  });
});
