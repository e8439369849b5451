import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MicCapture } from './mic-capture';

/**
 * The browser APIs MicCapture uses, scripted: getUserMedia answers when the test says, the
 * AudioContext records close() and resume(), addModule / the worklet node can fail.
 */
class Track {
  stopped = false;
  onended: (() => void) | null = null;
  constructor(private readonly settings: MediaTrackSettings = { echoCancellation: true }) {}
  stop() {
    this.stopped = true;
  }
  getSettings() {
    return this.settings;
  }
}
/** A source node the fake context made: what it was made from, and where it is connected now. */
type Source = { of: unknown; connected: { node: unknown; input: number | undefined }[] };
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
  sources: Source[] = [];
  createMediaStreamSource(of: unknown) {
    const source: Source = { of, connected: [] };
    this.sources.push(source);
    return {
      connect: (node: unknown, _output?: number, input?: number) => void source.connected.push({ node, input }),
      disconnect: () => void (source.connected = []),
    };
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

const stream = (settings?: MediaTrackSettings) => {
  const track = new Track(settings);
  tracks.push(track);
  return { getTracks: () => [track], getAudioTracks: () => [track] };
};
const events = () => ({ frame: vi.fn(), lost: vi.fn() });
const grant = async (settings?: MediaTrackSettings) => {
  await vi.waitFor(() => expect(pendingGum).toHaveLength(1));
  pendingGum.shift()!.resolve(stream(settings));
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

  describe('its own echo canceller (ADR 108): what the visitor hears into the worklet’s second input', () => {
    const heard = (name: string) => ({ name, getAudioTracks: () => [{}] }) as unknown as MediaStream;
    /** Where each source context `k` made is connected: [what it was made from, input]. */
    const wiring = (k = 0) => contexts[k]!.sources.flatMap((s) => s.connected.map((c) => [s.of === undefined ? '?' : ((s.of as { name?: string }).name ?? 'mic'), c.input ?? 0]));

    it('the browser cancels echo on this track: nothing more is connected', async () => {
      const mic = new MicCapture(events());
      mic.setEchoReference(heard('loopback'));
      const started = mic.start();
      await grant({ echoCancellation: true });
      await started;
      expect(wiring()).toEqual([['mic', 0]]);
      mic.stop();
    });

    it('it does not (the track says so, or says nothing): the reference given before start is connected to input 1, a new one replaces it, stop() lets go', async () => {
      const mic = new MicCapture(events());
      mic.setEchoReference(heard('direct'));
      const started = mic.start();
      await grant({});
      await started;
      expect(wiring()).toEqual([
        ['mic', 0],
        ['direct', 1],
      ]);
      // The loopback takes over: the old source leaves the worklet.
      mic.setEchoReference(heard('loopback'));
      expect(wiring()).toEqual([
        ['mic', 0],
        ['loopback', 1],
      ]);
      mic.setEchoReference(null);
      expect(wiring()).toEqual([['mic', 0]]);
      mic.setEchoReference(heard('loopback again'));
      mic.stop();
      expect(wiring()).toEqual([]);
    });

    it('the mic turned off and on again: the reference is connected in the new context', async () => {
      const mic = new MicCapture(events());
      mic.setEchoReference(heard('loopback'));
      let started = mic.start();
      await grant({});
      await started;
      mic.stop();
      started = mic.start();
      await grant({});
      await started;
      expect(contexts).toHaveLength(2);
      expect(wiring(1)).toEqual([
        ['mic', 0],
        ['loopback', 1],
      ]);
      mic.stop();
    });

    it('a reference without an audio track, or one the context refuses: nothing connected, the mic goes on', async () => {
      const mic = new MicCapture(events());
      const started = mic.start();
      await grant({});
      expect(await started).toEqual({ ok: true });
      mic.setEchoReference({ getAudioTracks: () => [] } as unknown as MediaStream);
      expect(wiring()).toEqual([['mic', 0]]);
      contexts[0]!.createMediaStreamSource = () => {
        throw new Error('not this stream');
      };
      mic.setEchoReference(heard('foreign'));
      expect(wiring()).toEqual([['mic', 0]]);
      expect(mic.active).toBe(true);
      mic.stop();
    });

    it('“echoCancellation: false” reported: the page cancels', async () => {
      const mic = new MicCapture(events());
      const started = mic.start();
      await grant({ echoCancellation: false });
      await started;
      mic.setEchoReference(heard('loopback'));
      expect(wiring()).toEqual([
        ['mic', 0],
        ['loopback', 1],
      ]);
      mic.stop();
    });
  });
});
