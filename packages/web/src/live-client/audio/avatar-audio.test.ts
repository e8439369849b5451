import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AvatarAudio } from './avatar-audio';
import type { PlayerInbound } from './player-worklet';

/** The Web Audio the player uses, scripted: what reaches the worklet is recorded. */
let posted: PlayerInbound[];
let contexts: FakeContext[];

class FakeContext {
  state: 'suspended' | 'running' | 'closed' = 'running';
  sampleRate: number;
  currentTime = 0;
  destination = {};
  onstatechange: (() => void) | null = null;
  audioWorklet = { addModule: async () => undefined };
  constructor(opts?: { sampleRate?: number }) {
    this.sampleRate = opts?.sampleRate ?? 48_000;
    contexts.push(this);
  }
  createGain() {
    return { gain: { value: 1, setTargetAtTime: () => undefined }, connect: () => undefined, disconnect: () => undefined };
  }
  resume() {
    this.state = 'running';
    return Promise.resolve();
  }
  close() {
    this.state = 'closed';
    return Promise.resolve();
  }
}
class FakeNode {
  port = { onmessage: null as unknown, postMessage: (m: PlayerInbound) => posted.push(m) };
  connect() {}
  disconnect() {}
}

const events = { started: vi.fn(), progress: vi.fn(), ended: vi.fn(), blocked: vi.fn() };
const pcm = (samples: number) => new Uint8Array(samples * 2);
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

beforeEach(() => {
  posted = [];
  contexts = [];
  vi.stubGlobal('AudioContext', FakeContext);
  vi.stubGlobal('AudioWorkletNode', FakeNode);
  for (const fn of Object.values(events)) fn.mockReset();
});
afterEach(() => vi.unstubAllGlobals());

describe('AvatarAudio while the voice waits for the face', () => {
  it('holds what arrives, in order, and plays it once the face is drawn', async () => {
    const audio = new AvatarAudio(events, { loopback: false });
    const face = deferred();
    const started = audio.start(16_000, face.promise);
    audio.push(1, pcm(160), false);
    audio.push(1, pcm(160), true);
    audio.end(1);
    await Promise.resolve();
    expect(posted).toEqual([]);
    face.resolve();
    await started;
    expect(posted.map((m) => m.type)).toEqual(['pcm', 'pcm', 'end']);
    audio.close();
  });

  it('an interruption during the hold drops that utterance: nothing of it is played afterwards', async () => {
    const audio = new AvatarAudio(events, { loopback: false });
    const face = deferred();
    const started = audio.start(16_000, face.promise);
    audio.push(1, pcm(160), false);
    audio.push(2, pcm(160), false);
    audio.flush(1);
    audio.pauseUtterance(2);
    face.resolve();
    await started;
    expect(posted.map((m) => `${m.type}${'utt' in m ? m.utt : ''}`)).toEqual(['pcm2', 'flush1', 'pause2']);
    audio.close();
  });

  it('a hang-up during the hold (a flush of everything) leaves only the flush', async () => {
    const audio = new AvatarAudio(events, { loopback: false });
    const face = deferred();
    const started = audio.start(16_000, face.promise);
    audio.push(1, pcm(160), false);
    audio.end(1);
    audio.connectionLost();
    face.resolve();
    await started;
    expect(posted.map((m) => m.type)).toEqual(['flush']);
    audio.close();
  });

  it('says at once that the browser keeps sound off, not after the hold', async () => {
    const audio = new AvatarAudio(events, { loopback: false });
    const face = deferred();
    class Suspended extends FakeContext {
      override state: 'suspended' | 'running' | 'closed' = 'suspended';
    }
    vi.stubGlobal('AudioContext', Suspended);
    const started = audio.start(16_000, face.promise);
    expect(events.blocked).toHaveBeenCalledWith(true);
    face.resolve();
    await started;
    audio.close();
  });

  it('a new context (another rate after a resume) starts with nothing of the old one held', async () => {
    const audio = new AvatarAudio(events, { loopback: false });
    const face = deferred();
    void audio.start(16_000, face.promise);
    audio.push(1, pcm(160), false);
    const again = audio.start(24_000);
    audio.connectionResumed();
    await again;
    face.resolve();
    expect(posted.map((m) => m.type)).toEqual(['forget']);
    expect(contexts).toHaveLength(2);
    audio.close();
  });
});
