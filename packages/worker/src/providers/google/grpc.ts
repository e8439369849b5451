/**
 * The little of Protocol Buffers and gRPC that Google's streaming speech recognition needs, by
 * hand (no protobuf runtime, no generated code): a message writer, a reader that gives each
 * field's values by number, and gRPC's length-prefixed message framing.
 *
 * Wire format (protobuf.dev "Encoding"): a field is a varint key `(number << 3) | wireType`, then
 * a varint (type 0), 8 bytes (1), a varint length and that many bytes (2: strings, bytes, nested
 * messages, packed repeated), or 4 bytes (5). gRPC over HTTP/2 (grpc.io "PROTOCOL-HTTP2"): each
 * message is a 1-byte compressed flag (0 here), a 4-byte big-endian length, then the message.
 */

/** Builds one message; fields are written in the order they are added. */
export class ProtoWriter {
  private parts: Buffer[] = [];

  private varint(n: number) {
    const bytes: number[] = [];
    let v = Math.floor(n);
    if (v < 0) throw new RangeError('negative varints are not written here');
    while (v > 0x7f) {
      bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
    this.parts.push(Buffer.from(bytes));
  }

  private key(field: number, wireType: number) {
    this.varint(field * 8 + wireType);
  }

  uint(field: number, value: number): this {
    this.key(field, 0);
    this.varint(value);
    return this;
  }

  bool(field: number, value: boolean): this {
    return this.uint(field, value ? 1 : 0);
  }

  bytes(field: number, value: Uint8Array): this {
    this.key(field, 2);
    this.varint(value.byteLength);
    this.parts.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export type ProtoValue = number | Buffer;

/**
 * A message's fields: number → values in order (varints and fixed-width values as numbers —
 * 32-bit ones as their float reading —, length-delimited ones as bytes). Throws on a malformed
 * message.
 */
export function readProto(buf: Buffer): Map<number, ProtoValue[]> {
  const fields = new Map<number, ProtoValue[]>();
  let at = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (at >= buf.length) throw new Error('truncated varint');
      const b = buf[at++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
    throw new Error('varint too long');
  };
  while (at < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const type = key % 8;
    let value: ProtoValue;
    if (type === 0) value = varint();
    else if (type === 2) {
      const len = varint();
      if (at + len > buf.length) throw new Error('truncated field');
      value = buf.subarray(at, at + len);
      at += len;
    } else if (type === 5) {
      if (at + 4 > buf.length) throw new Error('truncated field');
      value = buf.readFloatLE(at);
      at += 4;
    } else if (type === 1) {
      if (at + 8 > buf.length) throw new Error('truncated field');
      value = buf.readDoubleLE(at);
      at += 8;
    } else throw new Error(`wire type ${type} is not supported`);
    if (field === 0) throw new Error('field number 0');
    const list = fields.get(field);
    if (list) list.push(value);
    else fields.set(field, [value]);
  }
  return fields;
}

/** The first value of a field as a number / string / bytes (undefined when absent or of another type). */
export const protoNumber = (f: Map<number, ProtoValue[]>, n: number): number | undefined => {
  const v = f.get(n)?.[0];
  return typeof v === 'number' ? v : undefined;
};
export const protoBytes = (f: Map<number, ProtoValue[]>, n: number): Buffer | undefined => {
  const v = f.get(n)?.[0];
  return Buffer.isBuffer(v) ? v : undefined;
};
export const protoString = (f: Map<number, ProtoValue[]>, n: number): string | undefined => protoBytes(f, n)?.toString('utf8');
export const protoMessages = (f: Map<number, ProtoValue[]>, n: number): Map<number, ProtoValue[]>[] => (f.get(n) ?? []).filter(Buffer.isBuffer).map((b) => readProto(b));

/** One gRPC message on the wire (uncompressed). */
export function grpcFrame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(0, 0);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

/**
 * Splits a gRPC response body into messages as its chunks arrive. A compressed message (none
 * was asked for) or one larger than `maxMessage` throws.
 */
export class GrpcReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxMessage: number) {}

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Buffer[] = [];
    while (this.pending.length >= 5) {
      if (this.pending[0] !== 0) throw new Error('a compressed gRPC message (none was asked for)');
      const len = this.pending.readUInt32BE(1);
      if (len > this.maxMessage) throw new Error(`a gRPC message of ${len} bytes`);
      if (this.pending.length < 5 + len) break;
      out.push(this.pending.subarray(5, 5 + len));
      this.pending = this.pending.subarray(5 + len);
    }
    return out;
  }
}

/** gRPC status codes (grpc.io "Status codes") as the HTTP statuses the providers' errors carry. */
export function grpcStatusToHttp(code: number): number {
  const map: Record<number, number> = { 3: 400, 5: 404, 7: 403, 8: 429, 9: 400, 11: 400, 12: 501, 13: 500, 14: 503, 16: 401, 4: 504, 1: 499 };
  return map[code] ?? 500;
}
