/**
 * Server-sent events (the WHATWG "event stream" format) read from a fetch body: `field: value`
 * lines, events dispatched on a blank line, `data` lines joined with "\n", comments (`:`)
 * ignored, CR, LF and CRLF line ends. `onBytes` is called for every chunk that arrives (the
 * callers' idle timers). An event larger than `maxEventChars` is an error (hostile peers).
 */
export interface SseEvent {
  /** "message" when the stream did not name it. */
  event: string;
  data: string;
}

export class SseFormatError extends Error {
  override readonly name = 'SseFormatError';
}

export interface ReadSseOptions {
  /** Called for every chunk that arrives. */
  onBytes?: () => void;
  maxEventChars?: number;
  /**
   * When the consumer stops early (after the stream's own end marker, e.g. `[DONE]`), read what is
   * left for up to this long instead of cancelling, so the connection can be kept alive.
   */
  drainOnReturnMs?: number;
}

const DRAIN_MAX_BYTES = 64 * 1024;

export async function* readSse(body: ReadableStream<Uint8Array>, options: ReadSseOptions = {}): AsyncGenerator<SseEvent> {
  const { onBytes, maxEventChars = 1_000_000, drainOnReturnMs = 0 } = options;
  const reader = body.getReader();
  let finished = false;
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let dataChars = 0;
  let first = true;
  const take = (line: string): SseEvent | null => {
    if (line === '') {
      if (data.length === 0) {
        event = '';
        return null;
      }
      const out = { event: event || 'message', data: data.join('\n') };
      event = '';
      data = [];
      dataChars = 0;
      return out;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      dataChars += value.length;
      if (dataChars > maxEventChars) throw new SseFormatError(`an event is larger than ${maxEventChars} characters`);
      data.push(value);
    } else if (field === 'event') event = value;
    return null;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      onBytes?.();
      buffer += decoder.decode(value, { stream: true });
      if (first && buffer.length > 0) {
        if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
        first = false;
      }
      let start = 0;
      for (;;) {
        const cr = buffer.indexOf('\r', start);
        const lf = buffer.indexOf('\n', start);
        if (cr === -1 && lf === -1) break;
        let end: number;
        let next: number;
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          // A CR at the very end may be the first half of a CRLF split across chunks.
          if (cr === buffer.length - 1) break;
          end = cr;
          next = buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
        } else {
          end = lf;
          next = lf + 1;
        }
        const out = take(buffer.slice(start, end));
        start = next;
        if (out) yield out;
      }
      buffer = buffer.slice(start);
      if (buffer.length > maxEventChars) throw new SseFormatError(`a line is longer than ${maxEventChars} characters`);
    }
    buffer += decoder.decode();
    // Lenient at the end: a last line or event without its blank line still counts.
    for (const line of buffer.split(/\r\n|\r|\n/)) {
      const out = take(line);
      if (out) yield out;
    }
    const last = take('');
    if (last) yield last;
  } finally {
    if (finished) reader.releaseLock();
    else if (drainOnReturnMs > 0) void drain(reader, drainOnReturnMs);
    else reader.cancel().catch(() => {});
  }
}

/** Reads the rest of a body (bounded in time and size) so that its connection can be reused. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<void> {
  const timer = setTimeout(() => reader.cancel().catch(() => {}), ms);
  try {
    for (let total = 0; total <= DRAIN_MAX_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // cancelled or broken: the connection is simply not reused
  } finally {
    clearTimeout(timer);
  }
}
