import { describe, expect, it } from 'vitest';
import { readSse, SseFormatError, type SseEvent } from './sse.js';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
}

async function all(chunks: string[], max?: number): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of readSse(streamOf(chunks), { maxEventChars: max })) out.push(ev);
  return out;
}

describe('server-sent events', () => {
  it('reads data events, named events, comments and multi-line data', async () => {
    expect(await all([': keep-alive\n\n', 'data: {"a":1}\n\n', 'event: thread.message.delta\ndata: x\ndata: y\n\n', 'data:no-space\n\n'])).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'thread.message.delta', data: 'x\ny' },
      { event: 'message', data: 'no-space' },
    ]);
  });

  it('handles CRLF and CR line ends, split anywhere across chunks, and a leading BOM', async () => {
    const text = '\ufeffdata: one\r\n\r\ndata: two\r\rdata: thr\u00e9e\n\n';
    const expected = [
      { event: 'message', data: 'one' },
      { event: 'message', data: 'two' },
      { event: 'message', data: 'thr\u00e9e' },
    ];
    for (let cut = 1; cut < text.length; cut++) expect(await all([text.slice(0, cut), text.slice(cut)])).toEqual(expected);
  });

  it('splits multi-byte characters across chunks correctly', async () => {
    const bytes = new TextEncoder().encode('data: h\u00e9llo \u{1F600}\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    const out: SseEvent[] = [];
    for await (const ev of readSse(stream)) out.push(ev);
    expect(out).toEqual([{ event: 'message', data: 'h\u00e9llo \u{1F600}' }]);
  });

  it('keeps a last event that lacks its blank line', async () => {
    expect(await all(['data: [DONE]'])).toEqual([{ event: 'message', data: '[DONE]' }]);
  });

  it('refuses an endless event', async () => {
    await expect(all(['data: ', 'x'.repeat(2000), '\n', `data: ${'y'.repeat(2000)}\n`], 3000)).rejects.toBeInstanceOf(SseFormatError);
    await expect(all(['data: ', 'x'.repeat(5000)], 3000)).rejects.toBeInstanceOf(SseFormatError);
  });
});
