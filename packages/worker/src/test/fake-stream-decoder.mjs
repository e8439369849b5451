// A stand-in for the streaming offline recogniser's Python decoder (providers/stt/offline-stream.ts):
// the same stdin frames and stdout JSON lines, no model. Its "hypothesis" says what it got:
// `heard <samples> from <first sample>` — enough to check framing, order and isolation.
// Flags: --ready-delay MS, --no-ready (exits at once), --crash-on V (exits when an audio sample
// equals V), --hang-on V (never answers the end of an utterance whose first sample is V),
// --stall-ms MS (stops reading stdin for MS after the first audio frame: a process far behind),
// --say-pid (the hypothesis ends with ` on <pid>`: which process decoded it), --slow-ms MS (stops
// reading stdin for MS after every audio frame: a slow decoder on a loaded machine, still going).
// Models loaded ahead (L frames) are named at the end of each hypothesis: ` (loaded a,b)`.
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1] ?? 1) : null;
};
if (args.includes('--no-ready')) process.exit(3);
const crashOn = flag('--crash-on');
const hangOn = flag('--hang-on');
const stallMs = flag('--stall-ms');
const slowMs = flag('--slow-ms');
let stalled = false;
const say = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
let buf = Buffer.alloc(0);
let current = null;
/** Models loaded ahead ('L' frames): the hypothesis ends with ` (loaded …)` once there are any. */
const loaded = [];
const handle = (kind, id, payload) => {
  if (kind === 'L') {
    loaded.push(payload.toString('utf8'));
    say({ loaded: loaded.at(-1) });
    return;
  }
  if (kind === 'S') {
    const opts = JSON.parse(payload.toString('utf8') || '{}');
    current = { id, samples: 0, first: null, partial: opts.partial, lm: opts.lm ?? null };
    return;
  }
  if (!current || current.id !== id) return;
  if (kind === 'A') {
    const pcm = new Int16Array(payload.buffer.slice(payload.byteOffset, payload.byteOffset + payload.byteLength));
    if (crashOn !== null && pcm.includes(crashOn)) process.exit(1);
    if (current.first === null) current.first = pcm[0];
    current.samples += pcm.length;
    if (current.partial) say({ id, partial: `heard ${current.samples}` });
    if (slowMs !== null) {
      process.stdin.pause();
      setTimeout(() => process.stdin.resume(), slowMs);
    }
    if (stallMs !== null && !stalled) {
      stalled = true;
      process.stdin.pause();
      setTimeout(() => process.stdin.resume(), stallMs);
    }
  } else if (kind === 'E') {
    const u = current;
    current = null;
    if (hangOn !== null && u.first === hangOn) return;
    say({ id, final: true, text: `heard ${u.samples} from ${u.first}${u.lm ? ` with ${u.lm}` : ''}${args.includes('--say-pid') ? ` on ${process.pid}` : ''}${loaded.length ? ` (loaded ${loaded.join(',')})` : ''}`, score: -u.samples, decodeMs: 0 });
  } else if (kind === 'X') current = null;
};
process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 9) {
    const len = buf.readUInt32LE(5);
    if (buf.length < 9 + len) break;
    handle(buf.toString('latin1', 0, 1), buf.readUInt32LE(1), buf.subarray(9, 9 + len));
    buf = buf.subarray(9 + len);
  }
});
process.stdin.on('end', () => process.exit(0));
setTimeout(() => say({ ready: true }), flag('--ready-delay') ?? 0);
