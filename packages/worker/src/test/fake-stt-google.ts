import { generateKeyPairSync, verify } from 'node:crypto';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { GOOGLE_API_KEY, httpFake } from './fake-stt.js';
import type { FakeServer } from '../../../net/src/test/http-fake.js';

// ─── Google's streaming recognition (gRPC over HTTP/2) ────────────────────────────────────

/** One StreamingRecognize call as the fake saw it. */
export interface GoogleStream {
  headers: http2.IncomingHttpHeaders;
  /** The streaming_config, read back: RecognitionConfig's fields and interim_results. */
  config: { encoding?: number; sampleRate?: number; language?: string; channels?: number; punctuation?: boolean; model?: string; phrases: string[]; alternatives: string[]; interim?: boolean } | null;
  /** Audio samples received. */
  samples: number;
  /** The client half-closed the stream (finalize). */
  halfClosed: boolean;
  closed: boolean;
  /** Messages that broke the protocol (audio before the config, a second config…). */
  violations: string[];
}

export interface GoogleSpeechKnobs {
  /** Streams are accepted, then nothing is ever answered (no results, no status). */
  silent?: boolean;
  /** Answers with a message that is not protobuf. */
  garbage?: boolean;
  /** Ends streams with this gRPC status when they half-close (8 RESOURCE_EXHAUSTED…). */
  status?: number;
  /** Destroys the HTTP/2 connection once this many bytes of audio arrived. */
  dropAfterBytes?: number;
  /** The final result and the status come this long after the half-close. */
  delayEndMs?: number;
  /** Answers the first audio with a response whose `error` is this status. */
  errorResponse?: { code: number; message: string };
  /** Answers with this HTTP status instead of 200 (a proxy in the way). */
  httpStatus?: number;
  /** Only this many streams misbehave; later ones behave. Default: all. */
  times?: number;
}

export interface FakeGoogleSpeech extends FakeServer {
  /** http://127.0.0.1:PORT (HTTP/2 without TLS) */
  origin: string;
  streams: GoogleStream[];
  knobs: GoogleSpeechKnobs;
  /** A service-account key whose token_uri is this fake's token endpoint (HTTP/1.1, `POST /token`). */
  serviceAccountJson: string;
  issued: Set<string>;
  /** Ends every open stream with this gRPC status (as Google does at its time limit: 11). */
  endStreams(code: number, message: string): void;
  /** Sends GOAWAY on every connection (a server draining): open streams may finish, new ones go elsewhere. */
  goaway(): void;
  /** Connections made so far. */
  sessionsMade(): number;
}

const pbVarint = (n: number) => {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
};
const pbField = (field: number, value: Buffer | string | number): Buffer =>
  typeof value === 'number' ? Buffer.concat([pbVarint(field * 8), pbVarint(value)]) : Buffer.concat([pbVarint(field * 8 + 2), pbVarint(Buffer.byteLength(value)), Buffer.from(value)]);
/** The fake's own protobuf reader (fields → raw values), independent of the client's. */
function pbRead(buf: Buffer): [number, number | Buffer][] {
  const out: [number, number | Buffer][] = [];
  let at = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[at++]!;
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return v;
    }
  };
  while (at < buf.length) {
    const key = varint();
    if ((key & 7) === 0) out.push([key >>> 3, varint()]);
    else if ((key & 7) === 2) {
      const len = varint();
      out.push([key >>> 3, buf.subarray(at, at + len)]);
      at += len;
    } else throw new Error(`wire type ${key & 7}`);
  }
  return out;
}
const grpcMessageFrame = (msg: Buffer) => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(msg.length, 1);
  return Buffer.concat([head, msg]);
};
/** A StreamingRecognizeResponse with one result. */
const googleResult = (transcript: string, isFinal: boolean, endSamples: number, language?: string) => {
  const alt = pbField(1, transcript);
  const end = Buffer.concat([pbField(1, Math.floor(endSamples / 16000)), pbField(2, (endSamples % 16000) * 62_500)]);
  const result = Buffer.concat([pbField(1, alt), ...(isFinal ? [pbField(2, 1)] : []), pbField(4, end), ...(language ? [pbField(6, language)] : [])]);
  return pbField(2, result);
};

/**
 * Google's StreamingRecognize (`/google.cloud.speech.v1.Speech/StreamingRecognize`, HTTP/2
 * without TLS here), with an API key (`x-goog-api-key`) or a bearer token issued by its token
 * endpoint (`POST /token` on an HTTP/1.1 port: the JWT bearer grant, RS256 checked against the key
 * pair it made). It "recognises" by counting loud samples (|x| > 500): an interim result every
 * 0.5 s of them, and on the half-close a final `heard N samples` in the config's language, then
 * `grpc-status: 0`.
 */
export async function startFakeGoogleSpeech(): Promise<FakeGoogleSpeech> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = 'stt@persona-test.iam.gserviceaccount.com';
  const issued = new Set<string>();
  let tokenUri = '';
  const tokens = await httpFake((r) => {
    if (r.method !== 'POST' || r.path !== '/token') return { status: 404, body: { error: 'not found' } };
    const form = new URLSearchParams(r.body.toString('utf8'));
    const [h, c, sig] = (form.get('assertion') ?? '').split('.');
    const ok = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && h && c && sig && verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(sig, 'base64url'));
    const claims = ok ? (JSON.parse(Buffer.from(c!, 'base64url').toString('utf8')) as Record<string, unknown>) : {};
    if (!ok || claims.iss !== clientEmail || claims.aud !== tokenUri) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } };
    const token = `ya29.stt-${issued.size + 1}`;
    issued.add(token);
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
  });
  tokenUri = `${tokens.origin}/token`;
  const streams: GoogleStream[] = [];
  /** Open streams, and how endStreams() wants each ended. */
  const open = new Map<http2.ServerHttp2Stream, { code: number; message: string } | null>();
  const sessions = new Set<http2.ServerHttp2Session>();
  const self = { knobs: {} as GoogleSpeechKnobs };
  const server = http2.createServer();
  let made = 0;
  server.on('session', (s) => {
    made++;
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream, headers) => {
    let knobs = self.knobs;
    if (knobs.times !== undefined) {
      if (knobs.times > 0) knobs.times--;
      else knobs = {};
    }
    const trailersOnly = (code: number, message: string) => stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) }, { endStream: true });
    if (headers[':method'] !== 'POST' || headers[':path'] !== '/google.cloud.speech.v1.Speech/StreamingRecognize') return trailersOnly(12, 'unknown method');
    if (headers['content-type'] !== 'application/grpc' || headers.te !== 'trailers') return stream.respond({ ':status': 415 }, { endStream: true });
    if (knobs.httpStatus) return stream.respond({ ':status': knobs.httpStatus, 'content-type': 'text/html' }, { endStream: true });
    const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    if (headers['x-goog-api-key'] !== GOOGLE_API_KEY && !(bearer && issued.has(bearer))) return trailersOnly(16, 'Request had invalid authentication credentials.');
    const st: GoogleStream = { headers, config: null, samples: 0, halfClosed: false, closed: false, violations: [] };
    streams.push(st);
    open.set(stream, null);
    let loud = 0;
    let pending = Buffer.alloc(0);
    let audioBytes = 0;
    const send = (msg: Buffer) => {
      if (knobs.silent || stream.closed) return;
      if (knobs.garbage) return void stream.write(grpcMessageFrame(Buffer.from([0xff, 0xff, 0xff])));
      stream.write(grpcMessageFrame(msg));
    };
    if (!knobs.silent) stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => {
      const forced = open.get(stream);
      const code = forced?.code ?? knobs.status ?? 0;
      stream.sendTrailers({ 'grpc-status': String(code), 'grpc-message': encodeURIComponent(forced?.message ?? (code ? 'fake status' : '')) });
    });
    stream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
        const msg = pending.subarray(5, 5 + pending.readUInt32BE(1));
        pending = pending.subarray(5 + msg.length);
        const fields = pbRead(msg);
        const cfg = fields.find(([n]) => n === 1)?.[1];
        const audio = fields.find(([n]) => n === 2)?.[1];
        if (Buffer.isBuffer(cfg)) {
          if (st.config) st.violations.push('a second streaming_config');
          const sc = pbRead(cfg);
          const rc = pbRead((sc.find(([n]) => n === 1)?.[1] as Buffer | undefined) ?? Buffer.alloc(0));
          const one = (n: number) => rc.find(([k]) => k === n)?.[1];
          const str = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : undefined);
          st.config = {
            encoding: one(1) as number | undefined,
            sampleRate: one(2) as number | undefined,
            language: str(one(3)),
            channels: one(7) as number | undefined,
            punctuation: one(11) === 1,
            model: str(one(13)),
            phrases: rc.filter(([k]) => k === 6).flatMap(([, v]) => pbRead(v as Buffer).map(([, p]) => str(p)!)),
            alternatives: rc.filter(([k]) => k === 18).map(([, v]) => str(v)!),
            interim: sc.find(([n]) => n === 3)?.[1] === 1,
          };
        } else if (Buffer.isBuffer(audio)) {
          if (!st.config) st.violations.push('audio before the streaming_config');
          if (knobs.errorResponse && audioBytes === 0) send(pbField(1, Buffer.concat([pbField(1, knobs.errorResponse.code), pbField(2, knobs.errorResponse.message)])));
          audioBytes += audio.length;
          if (knobs.dropAfterBytes !== undefined && audioBytes >= knobs.dropAfterBytes) return void stream.session?.destroy();
          const pcm = new Int16Array(audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.length - (audio.length % 2)));
          for (const x of pcm) {
            st.samples++;
            if (Math.abs(x) > 500 && ++loud % 8000 === 0 && st.config?.interim) send(googleResult(`hearing ${loud} samples`, false, st.samples));
          }
        } else st.violations.push('a request with neither config nor audio');
      }
    });
    stream.on('end', () => {
      st.halfClosed = true;
      if (knobs.silent) return;
      const answer = () => {
        if (stream.closed) return;
        if (!knobs.status && loud > 0) send(googleResult(`heard ${loud} samples`, true, st.samples, st.config?.language?.toLowerCase()));
        stream.end();
      };
      if (knobs.delayEndMs) setTimeout(answer, knobs.delayEndMs);
      else answer();
    });
    stream.on('close', () => {
      st.closed = true;
      open.delete(stream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const serviceAccountJson = JSON.stringify({ type: 'service_account', client_email: clientEmail, private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), private_key_id: 'k1', token_uri: tokenUri });
  return Object.assign(self, {
    origin: `http://127.0.0.1:${port}`,
    streams,
    serviceAccountJson,
    issued,
    endStreams(code: number, message: string) {
      for (const s of open.keys()) {
        open.set(s, { code, message });
        s.end();
      }
    },
    goaway() {
      for (const s of sessions) s.goaway();
    },
    sessionsMade: () => made,
    close: async () => {
      for (const s of sessions) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tokens.close();
    },
  });
}
