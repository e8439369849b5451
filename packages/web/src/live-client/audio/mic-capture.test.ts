import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MicCapture } from './mic-capture';

/**
 * The browser APIs MicCapture uses, scripted: getUserMedia answers when the test says, the
 * AudioContext records close() and resume(), addModule / the worklet node can fail.
 */
class Track {
  stopped = false;
  onended: (() => void) | null = null;
  stop() {
    this.stopped = true;
  }
}
let knobs: { addModuleFails?: boolean; nodeFails?: boolean; resumeHangs?: boolean };
let contexts: FakeContext[];
let tracks: Track[];
let pendingGum: { resolve: (s: unknown) => void; reject: (e: unknown) => void }[];

class FakeContext {
  state: 'suspended' | 'running' | 'closed' = 'suspended';
  closes = 0;
  resumes = 0;
  audioWorklet = {
    addModule: async () => {
      if (knobs.addModuleFails) throw new Error('module blocked');
    },
  };
  constructor() {
    contexts.push(this);
  }
  resume() {
    this.resumes++;
    if (knobs.resumeHangs) return new Promise<void>(() => undefined);
    this.state = 'running';
    return Promise.resolve();
  }
  close() {
    this.closes++;
    this.state = 'closed';
    return Promise.resolve();
  }
  createMediaStreamSource() {
    return { connect: () => undefined, disconnect: () => undefined };
  }
}
class FakeNode {
  port = { onmessage: null as unknown, postMessage: () => undefined };
  constructor() {
    if (knobs.nodeFails) throw new Error('no processor');
  }
  disconnect() {}
}

beforeEach(() => {
  knobs = {};
  contexts = [];
  tracks = [];
  pendingGum = [];
  vi.stubGlobal('AudioContext', FakeContext);
  vi.stubGlobal('AudioWorkletNode', FakeNode);
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: {
      getUserMedia: () =>
        new Promise((resolve, reject) => {
          pendingGum.push({ resolve, reject });
        }),
    },
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const stream = () => {
  const track = new Track();
  tracks.push(track);
  return { getTracks: () => [track], getAudioTracks: () => [track] };
};
const events = () => ({ frame: vi.fn(), lost: vi.fn() });
const grant = async () => {
  await vi.waitFor(() => expect(pendingGum).toHaveLength(1));
  pendingGum.shift()!.resolve(stream());
};

describe('MicCapture', () => {
  it('starts: the context resumes and the frames flow', async () => {
    const mic = new MicCapture(events());
    const started = mic.start();
    await grant();
    expect(await started).toEqual({ ok: true });
    expect(mic.active).toBe(true);
    expect(contexts[0]!.state).toBe('running');
    mic.stop();
    expect(tracks[0]!.stopped).toBe(true);
    expect(contexts[0]!.closes).toBe(1);
  });

  it.each([['addModule', 'addModuleFails'] as const, ['new AudioWorkletNode', 'nodeFails'] as const])('closes the AudioContext when %s throws (no leaked context)', async (_what, knob) => {
    knobs[knob] = true;
    const mic = new MicCapture(events());
    const started = mic.start();
    await grant();
    expect(await started).toEqual({ ok: false, problem: 'unavailable' });
    expect(contexts).toHaveLength(1);
    expect(contexts[0]!.closes).toBe(1);
    expect(tracks[0]!.stopped).toBe(true);
  });

  it('stop() while the browser still asks: a cancelled result, not "in use by another application"', async () => {
    const mic = new MicCapture(events());
    const started = mic.start();
    await vi.waitFor(() => expect(pendingGum).toHaveLength(1));
    mic.stop();
    pendingGum.shift()!.resolve(stream());
    expect(await started).toEqual({ ok: false, cancelled: true });
    expect(tracks[0]!.stopped).toBe(true);
    expect(mic.active).toBe(false);
    // A refusal that arrives after stop() is no problem to report either.
    const again = mic.start();
    await vi.waitFor(() => expect(pendingGum).toHaveLength(1));
    mic.stop();
    pendingGum.shift()!.reject(Object.assign(new Error('x'), { name: 'NotReadableError' }));
    expect(await again).toEqual({ ok: false, cancelled: true });
  });

  it('a resume() that stays pending (no gesture) does not hold start(); the next pointerdown resumes', async () => {
    knobs.resumeHangs = true;
    const mic = new MicCapture(events(), { resumeTimeoutMs: 30 });
    const started = mic.start();
    await grant();
    expect(await started).toEqual({ ok: true });
    const ctx = contexts[0]!;
    expect(ctx.resumes).toBe(1);
    knobs.resumeHangs = false;
    window.dispatchEvent(new Event('pointerdown'));
    expect(ctx.resumes).toBe(2);
    await vi.waitFor(() => expect(ctx.state).toBe('running'));
    // Running: later clicks leave it alone.
    window.dispatchEvent(new Event('pointerdown'));
    expect(ctx.resumes).toBe(2);
    mic.stop();
  });

  it('stop() removes the gesture listener', async () => {
    knobs.resumeHangs = true;
    const mic = new MicCapture(events(), { resumeTimeoutMs: 10 });
    const started = mic.start();
    await grant();
    await started;
    mic.stop();
    window.dispatchEvent(new Event('keydown'));
    expect(contexts[0]!.resumes).toBe(1);
  });
});
