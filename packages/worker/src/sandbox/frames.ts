/**
 * Length-prefixed JSON frames (4-byte big-endian length + UTF-8 JSON), the format spoken with a
 * sandbox process on its control and bridge descriptors. The decoder refuses frames above a
 * size so that a misbehaving process cannot make the worker buffer without bound.
 */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

export class FrameDecoder {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {}

  /** The complete frames in the data so far; throws when a frame is too large or not JSON. */
  push(chunk: Buffer): unknown[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: unknown[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0);
      if (length > this.maxBytes) throw new Error(`frame of ${length} bytes is over the limit of ${this.maxBytes}`);
      if (this.pending.length < 4 + length) break;
      out.push(JSON.parse(this.pending.subarray(4, 4 + length).toString('utf8')));
      this.pending = this.pending.subarray(4 + length);
    }
    return out;
  }
}
