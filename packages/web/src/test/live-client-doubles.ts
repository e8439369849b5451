import type { TLiveStartAnswer, TWorkerFrame } from '@persona/contract';

/** A scripted stand-in for the worker's WebSocket (the browser's API surface the page uses). */
export class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static instances: FakeSocket[] = [];
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = 0;
  binaryType = 'blob';
  sent: unknown[] = [];
  /** Binary frames (mic audio) as sent. */
  binary: Uint8Array[] = [];
  bufferedAmount = 0;
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  onerror: (() => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
    queueMicrotask(() => {
      this.readyState = 1;
      this.onopen?.();
    });
  }
  send(data: string | ArrayBufferView) {
    if (typeof data === 'string') this.sent.push(JSON.parse(data));
    else this.binary.push(new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)));
  }
  close(code = 1000) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
  /** The worker sends a frame. */
  push(frame: TWorkerFrame) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  /** The connection drops without a close frame (worker killed). */
  drop() {
    this.readyState = 3;
    this.onclose?.({ code: 1006, reason: '' });
  }
  static reset() {
    FakeSocket.instances = [];
  }
  static last(): FakeSocket {
    const s = FakeSocket.instances.at(-1);
    if (!s) throw new Error('no socket opened');
    return s;
  }
}

export const pageConfig = (over: Partial<{ tokenRequired: boolean; oauth: { appId: number; startUrl: string; provider: string } | null; name: string }> = {}) => ({
  status: 'OK' as const,
  avatar: {
    id: 12,
    name: over.name ?? 'Nova',
    photoUrl: null,
    dhType: 2,
    avatarConfigUrl: null,
    tokenRequired: over.tokenRequired ?? false,
    oauth: over.oauth ?? null,
    engineName: 'Echo Test',
  },
});

export const admitted = (n = 1): TLiveStartAnswer => ({
  status: 'OK',
  sessionId: `sess-${n}`,
  ticket: `ticket-${n}`,
  wsUrl: `ws://worker-${n}.test/avatar-ws`,
  resumeToken: `resume-${n}`,
  ui: { wakeUpMessage: 'Hello!', demoSeconds: -1, idleTimeoutSeconds: 300, subtitles: false, transcriptionStreaming: false, canHandleSttResponse: false },
});

type Route = (body: unknown) => { status: number; body: unknown };

/** fetch for the live endpoints: answers by path, records the bodies it got. */
export function liveFetch(routes: Record<string, Route>) {
  const calls: { path: string; body: unknown }[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const body: unknown = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ path: url.pathname, body });
    const route = routes[url.pathname];
    const answer = route ? route(body) : { status: 404, body: { status: 'FAIL', errors: ['not found'] } };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fn, calls };
}

type FakeMicAnswer = { ok: true } | { ok: false; problem: 'denied' | 'missing' | 'unavailable' | 'unsupported' } | { ok: false; cancelled: true };

/**
 * A stand-in microphone: the test decides what the browser answers and feeds frames. Like the real
 * capture, start() answers later (after the permission prompt), and stop() during a start makes
 * that start answer "cancelled". With `hold`, start() waits until the test calls release().
 */
export class FakeMic {
  static last: FakeMic | null = null;
  active = false;
  starts = 0;
  stops = 0;
  /** What the next start() answers. */
  answer: FakeMicAnswer = { ok: true };
  /** Keep start() pending until release(). */
  hold = false;
  private pending: ((answer?: FakeMicAnswer) => void) | null = null;
  constructor(readonly events: { frame(pcm: Int16Array, rms: number): void; lost(problem: 'denied' | 'missing' | 'unavailable' | 'unsupported'): void }) {
    FakeMic.last = this;
  }
  start(): Promise<FakeMicAnswer> {
    this.starts++;
    return new Promise((resolve) => {
      const finish = (answer: FakeMicAnswer = this.answer) => {
        if (this.pending !== finish) return;
        this.pending = null;
        this.active = answer.ok;
        resolve(answer);
      };
      this.pending = finish;
      if (!this.hold) setTimeout(() => finish(), 0);
    });
  }
  /** The browser answers a held start() (with `answer`, or the current one). */
  release(answer?: FakeMicAnswer) {
    this.pending?.(answer);
  }
  get starting(): boolean {
    return this.pending !== null;
  }
  stop() {
    if (this.active) this.stops++;
    this.active = false;
    this.pending?.({ ok: false, cancelled: true });
  }
  /** The worklet delivers a frame (only while capturing, as the real one). */
  frame(pcm: Int16Array, rms = 0.1) {
    if (this.active) this.events.frame(pcm, rms);
  }
}
