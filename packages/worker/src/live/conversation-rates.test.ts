import { describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, LiveProtocol, LiveRates, type TLiveCode } from '@persona/contract';
import type { Brain } from '../brains/types.js';
import { sessionConfig } from '../test/brain-deps.js';
import { fakePage, framesOf, finals, until } from '../test/live-page.js';
import { Conversation } from './conversation.js';
import type { RealtimeSession } from './realtime-session.js';

/**
 * What one visitor can make the owner pay for (issue 26, item 5): typed messages become model
 * calls only at LiveRates' pace, with at most `maxQueuedTurns` waiting; a page that keeps sending
 * is told, then ended. A fake clock: nothing here waits for real time.
 */
const log = { info() {}, warn() {}, error() {} };

function portal() {
  const ends: TLiveCode[] = [];
  return {
    ends,
    link: {
      heartbeat: async () => ({ echo: false, end: null }),
      history: async () => undefined,
      end: async (code: TLiveCode) => void ends.push(code),
    },
  };
}

/** A model that counts its calls; each answer waits until the test releases it (held: true). */
function countingBrain(opts: { held?: boolean } = {}) {
  const calls: string[] = [];
  const waiting: (() => void)[] = [];
  const brain: Brain = {
    kind: 'counting',
    async *reply(turn) {
      calls.push(turn.text);
      if (opts.held) await new Promise<void>((r) => waiting.push(r));
      yield { type: 'text', delta: `answer to ${turn.text}` };
    },
  };
  return { brain, calls, release: () => waiting.shift()?.(), waiting };
}

function setup(brain: Brain) {
  let now = 1_000_000;
  const p = portal();
  const page = fakePage();
  const c = new Conversation({ config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }), brain, portal: p.link, log, now: () => now });
  c.attach(page);
  const text = (i: number) => c.onMessage(JSON.stringify({ type: 'text', id: `m${i}`, text: `message ${i}` }));
  return { c, page, portal: p, text, advance: (ms: number) => (now += ms) };
}

describe('a visitor cannot make the avatar answer faster than LiveRates allow', () => {
  for (const sent of [200, 5000]) {
    it(`at the pace every message is answered; ${sent} at once: at most ${LiveRates.messageBurst} taken, a notice for each refused one, then the session is ended`, async () => {
      const model = countingBrain();
      const { page, portal: p, text, advance } = setup(model.brain);
      // At the pace (one message every messageIntervalMs) every message is answered, however long it goes on.
      for (let i = 0; i < 20; i++) {
        text(1000 + i);
        await until(() => finals(page).length === i + 1);
        advance(LiveRates.messageIntervalMs);
      }
      expect(framesOf(page, 'notice')).toEqual([]);
      page.frames.length = 0;
      model.calls.length = 0;
      for (let i = 0; i < sent; i++) text(i);
      // Taken: the burst (confirmed with their ids); refused ones are named, so the page can take their bubbles back.
      expect(framesOf(page, 'transcript').map((t) => t.id)).toEqual(Array.from({ length: LiveRates.messageBurst }, (_, i) => `m${i}`));
      const notices = framesOf(page, 'notice');
      expect(notices).toHaveLength(LiveRates.maxRefusedMessages);
      expect(notices[0]).toEqual({ type: 'notice', code: LiveCode.tooFast, message: LiveMessages['too-fast'], id: `m${LiveRates.messageBurst}` });
      // One refusal past maxRefusedMessages: bye, closed, and the portal ends the session (no resume).
      expect(page.frames.find((f) => f.type === 'bye')).toEqual({ type: 'bye', code: LiveCode.tooManyMessages, message: LiveMessages['too-many-messages'] });
      expect(page.isOpen).toBe(false);
      await until(() => p.ends.length === 1);
      expect(p.ends).toEqual([LiveCode.tooManyMessages]);
      // The turns still waiting when it ended are not answered either.
      expect(model.calls.length).toBeLessThanOrEqual(LiveRates.messageBurst);
    });
  }

  it('a slow model: one turn in flight and maxQueuedTurns waiting; more are refused until the queue moves', async () => {
    const model = countingBrain({ held: true });
    const { page, text, advance } = setup(model.brain);
    // Within the rate (a message every interval) but faster than the model answers.
    const pending = LiveRates.maxQueuedTurns + 1;
    for (let i = 0; i < pending + 2; i++) {
      text(i);
      advance(LiveRates.messageIntervalMs);
    }
    await until(() => model.calls.length === 1);
    expect(framesOf(page, 'notice').map((n) => n.id)).toEqual([`m${pending}`, `m${pending + 1}`]);
    // The model answers one: the next message is taken again.
    model.release();
    await until(() => model.calls.length === 2);
    text(100);
    expect(framesOf(page, 'transcript').at(-1)?.id).toBe('m100');
    // The model answers the rest, one by one.
    for (let i = 0; i < pending; i++) {
      await until(() => model.waiting.length > 0);
      model.release();
    }
    await until(() => finals(page).length === pending + 1);
    expect(model.calls).toEqual([...Array.from({ length: pending }, (_, i) => `message ${i}`), 'message 100']);
  });

  it('speech-to-speech: typed messages reach the realtime model at the same rate', async () => {
    const texts: string[] = [];
    const realtime = (): RealtimeSession => ({
      sampleRate: 0,
      listening: false,
      currentUtt: null,
      start: async () => undefined,
      pushMic: () => undefined,
      userText: (text) => void texts.push(text),
      say: (text) => void texts.push(`say: ${text}`),
      interrupted: () => undefined,
      avatarHeard: () => undefined,
      close: () => undefined,
    });
    const page = fakePage();
    const c = new Conversation({ config: sessionConfig({ kind: 'echo' }), brain: null, realtime, portal: portal().link, log, now: () => 0 });
    c.attach(page);
    for (let i = 0; i < 200; i++) c.onMessage(JSON.stringify({ type: 'text', id: `r${i}`, text: `hi ${i}`, ...(i % 2 ? { speak: true } : {}) }));
    expect(texts).toEqual(['hi 0', 'say: hi 1', 'hi 2', 'say: hi 3', 'hi 4']);
    expect(page.frames.at(-1)).toMatchObject({ type: 'bye', code: LiveCode.tooManyMessages });
    expect(c.isFinished).toBe(true);
    expect(LiveProtocol.close.ended).toBe(4000);
  });
});
