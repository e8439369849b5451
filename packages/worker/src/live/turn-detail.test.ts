import { describe, expect, it } from 'vitest';
import { LiveTurnDetailLimits, ZLiveTurnDetail, type TLiveHistoryEntry, type TWorkerFrame } from '@persona/contract';
import { ProviderError } from '../core/errors.js';
import type { Brain } from '../brains/types.js';
import { sessionConfig } from '../test/brain-deps.js';
import { until } from '../test/until.js';
import { Conversation, type PageSocket } from './conversation.js';
import { boundDetails } from './history.js';
import { corrections, mergeDetail, TurnDetail, turnError, withoutDetail } from './turn-detail.js';

// The transcript's detail (ADR 102), gathered by the worker for each turn.

const log = { info() {}, warn() {}, error() {} };

function fakeSocket() {
  const frames: TWorkerFrame[] = [];
  let closed: number | null = null;
  const socket: PageSocket & { frames: TWorkerFrame[] } = {
    frames,
    send: (data) => frames.push(JSON.parse(data) as TWorkerFrame),
    sendBinary: () => undefined,
    close: (code) => (closed = code),
    get isOpen() {
      return closed === null;
    },
  };
  return socket;
}

describe('corrections of a spoken turn', () => {
  it('keeps the interim versions the final text changed, not the ones it only completed, each once, the last few', () => {
    expect(corrections(['where', 'where is', 'wear is my', 'where is my order'], 'Where is my order?')).toEqual(['wear is my']);
    expect(corrections(['book a table', 'book a cable', 'Book a cable!', 'book a table for two'], 'book a table for two')).toEqual(['book a cable']);
    expect(corrections([], 'hello')).toEqual([]);
    const many = Array.from({ length: 9 }, (_, i) => `guess ${i}`);
    expect(corrections(many, 'final')).toEqual(many.slice(-LiveTurnDetailLimits.interims));
  });
});

describe('a turn’s detail', () => {
  it('clips arguments, results and passages to the contract’s bounds, and keeps only so many', () => {
    const d = new TurnDetail();
    for (let i = 0; i < 12; i++) d.call(`f${i}`, 'a'.repeat(5_000), i % 2 === 0, 'r'.repeat(5_000));
    d.usedPassages(Array.from({ length: 9 }, (_, i) => ({ text: `  word\n`.repeat(200), source: `doc ${i}.pdf`, collectionId: 1, itemId: i })));
    for (let i = 0; i < 9; i++) d.error({ provider: 'p', code: 'failed' });
    const detail = d.detail()!;
    expect(ZLiveTurnDetail.safeParse(detail).success).toBe(true);
    expect(detail.calls).toHaveLength(LiveTurnDetailLimits.calls);
    expect(detail.calls![0]!.arguments).toHaveLength(LiveTurnDetailLimits.callChars);
    expect(detail.calls![0]!.result!.endsWith('\u2026')).toBe(true);
    expect(detail.calls![1]!.ok).toBe(false);
    expect(detail.passages).toHaveLength(LiveTurnDetailLimits.passages);
    expect(detail.passages![0]!.title).toBe('doc 0.pdf');
    expect(detail.passages![0]!.snippet.startsWith('word word')).toBe(true);
    expect(detail.errors).toHaveLength(LiveTurnDetailLimits.errors);
    expect(new TurnDetail().detail()).toBeUndefined();
  });

  it('adds the passages of several searches (realtime search_knowledge) each once, up to the bound; merges a turn’s detail into its entry', () => {
    const d = new TurnDetail();
    const p = (i: number) => ({ text: `passage ${i}`, source: `doc${i}.pdf`, collectionId: 1, itemId: i });
    d.addPassages([p(1), p(2)]);
    d.addPassages([p(2), p(3)]);
    expect(d.detail()!.passages!.map((x) => x.title)).toEqual(['doc1.pdf', 'doc2.pdf', 'doc3.pdf']);
    d.addPassages(Array.from({ length: 9 }, (_, i) => p(10 + i)));
    expect(d.detail()!.passages).toHaveLength(LiveTurnDetailLimits.passages);
    const entry: TLiveHistoryEntry = { role: 'assistant', text: 'x', at: 1, detail: { heardMs: 5, fullChars: 9, errors: [{ provider: 'a', code: 'failed' }] } };
    mergeDetail(entry, { calls: [{ name: 'f', arguments: '{}', ok: true, result: '1' }], errors: Array.from({ length: 9 }, () => ({ provider: 'b', code: 'timeout' })) });
    expect(entry.detail!.heardMs).toBe(5);
    expect(entry.detail!.calls).toHaveLength(1);
    expect(entry.detail!.errors!.map((e) => e.provider)).toEqual(['a', ...Array.from({ length: LiveTurnDetailLimits.errors - 1 }, () => 'b')]);
    mergeDetail(entry, undefined);
    expect(ZLiveTurnDetail.safeParse(entry.detail).success).toBe(true);
  });

  it('names a failure by provider and code, never by its message', () => {
    expect(turnError(new ProviderError('openai-compatible', 'Jane said jane@example.com', 429), 'reply', 'llm')).toEqual({ provider: 'openai-compatible', code: 'http-429', phase: 'reply' });
    expect(turnError(new Error('x'), 'speech', 'elevenlabs')).toEqual({ provider: 'elevenlabs', code: 'failed', phase: 'speech' });
    expect(turnError(new DOMException('slow', 'TimeoutError'), 'listening', 'deepgram')).toMatchObject({ code: 'timeout' });
  });

  it('drops the oldest turns’ detail (never their text) past the history’s budget', () => {
    const big = { calls: [{ name: 'f', arguments: 'a'.repeat(1_990), ok: true, result: 'r'.repeat(1_990) }] };
    const entries: TLiveHistoryEntry[] = Array.from({ length: 200 }, (_, i) => ({ role: 'assistant', text: `t${i}`, at: i, detail: big }));
    boundDetails(entries);
    const kept = entries.filter((e) => e.detail).length;
    expect(kept).toBeGreaterThan(40);
    expect(kept).toBeLessThan(200);
    expect(entries.at(-1)!.detail).toBeDefined();
    expect(entries[0]!.detail).toBeUndefined();
    expect(entries[0]!.text).toBe('t0');
    expect(JSON.stringify(entries.map((e) => e.detail ?? null)).length).toBeLessThanOrEqual(LiveTurnDetailLimits.historyChars + 200 * 5);
  });
});

describe('a conversation gathers each turn’s detail', () => {
  it('function calls with arguments and results, the passages, and the provider’s failure go with the answer; the page never gets them', async () => {
    let n = 0;
    const brain: Brain = {
      kind: 'test',
      async *reply() {
        n++;
        if (n === 1) {
          yield { type: 'passages', passages: [{ text: 'Opening hours: nine to five.', source: 'hours.md', collectionId: 1, itemId: 2 }] };
          yield { type: 'tool', name: 'lookup_order', status: 'started' };
          yield { type: 'tool', name: 'lookup_order', status: 'ok', arguments: '{"order":"42"}', result: '{"status":"shipped"}' };
          yield { type: 'tool', name: 'get_weather', status: 'error', error: 'KeyError: city', arguments: '{}', result: 'KeyError: city' };
          yield { type: 'text', delta: 'It shipped.' };
          return;
        }
        throw new ProviderError('openai-compatible', 'rate limited', 429);
      },
    };
    const histories: TLiveHistoryEntry[][] = [];
    const c = new Conversation({
      config: sessionConfig({ kind: 'echo' }, { avatar: { wakeUpMessage: '' } }),
      brain,
      portal: { heartbeat: async () => ({ echo: false, end: null }), history: async (h) => void histories.push(structuredClone(h)), end: async () => undefined },
      log,
    });
    const s = fakeSocket();
    c.attach(s);
    c.onMessage(JSON.stringify({ type: 'text', id: 'a', text: 'Where is order 42?' }));
    await until(() => histories.some((h) => h.length === 2));
    const [asked, answered] = histories.find((h) => h.length === 2)!;
    expect(asked).toEqual({ role: 'user', text: 'Where is order 42?', at: expect.any(Number) });
    expect(answered!.detail).toEqual({
      calls: [
        { name: 'lookup_order', arguments: '{"order":"42"}', ok: true, result: '{"status":"shipped"}' },
        { name: 'get_weather', arguments: '{}', ok: false, result: 'KeyError: city' },
      ],
      passages: [{ title: 'hours.md', snippet: 'Opening hours: nine to five.' }],
    });
    c.onMessage(JSON.stringify({ type: 'text', id: 'b', text: 'And tomorrow?' }));
    await until(() => histories.some((h) => h.length === 4));
    const apology = histories.find((h) => h.length === 4)![3]!;
    expect(apology.detail).toEqual({ errors: [{ provider: 'openai-compatible', code: 'http-429', phase: 'reply' }] });

    // A resume's `ready` (the page) and an own agent's history carry the text only.
    const again = fakeSocket();
    c.attach(again);
    const ready = again.frames.find((f) => f.type === 'ready') as { history: TLiveHistoryEntry[] };
    expect(ready.history).toHaveLength(4);
    expect(ready.history.some((e) => 'detail' in e)).toBe(false);
    expect(withoutDetail(histories.at(-1)!).some((e) => 'detail' in e)).toBe(false);
    await c.finish('hang-up');
  });
});
