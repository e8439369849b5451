import fs from 'node:fs';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Pipes `stream` through `check` into the file `file`. On failure it settles only once the file's
 * write stream has closed: a check that refuses the first bytes fails the pipeline while the file
 * is still being opened, and a caller's `rm` that ran then would find nothing — the open would
 * complete afterwards and leave an empty file behind (the schema fuzzing found such leftovers).
 */
export async function writeFileStream(stream: Readable | NodeJS.ReadableStream, check: Transform, file: string): Promise<void> {
  const out = fs.createWriteStream(file);
  try {
    await pipeline(stream, check, out);
  } catch (err) {
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    throw err;
  }
}
