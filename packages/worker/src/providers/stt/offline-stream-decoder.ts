/**
 * The Python program behind the streaming offline recogniser (offline-stream.ts, ADR 106), run as
 * `python3 -u -c STREAM_DECODER_PY -hmm … -lm … -dict …` with Debian's `python3-pocketsphinx`
 * (bindings for the installed PocketSphinx 5-prealpha). It is kept here as a string so that it
 * ships with the compiled worker (tsc copies no .py file) and runs without a file on disk.
 *
 * stdin: frames `type (1 byte) · utterance id (uint32 LE) · payload length (uint32 LE) · payload`:
 *   S start an utterance (payload: JSON {"lm"?: path of another n-gram model, "partial"?: bool}; a
 *     model that cannot be loaded is said once, {"loadFailed": path, "error"}, and the utterance is
 *     decoded with the generic model)
 *   A audio (16 kHz PCM16 LE mono, already dithered)
 *   E end of the utterance: its final hypothesis is written
 *   X cancel the utterance: nothing is written
 *   L load another n-gram model now (payload: its path; id 0), so that an utterance asking for it
 *     later does not wait for it (ADR 107); {"loaded": path} is written once it is ({"loadFailed"} if it cannot be)
 * stdout: one JSON object per line: {"ready": true} once the models are loaded;
 *   {"id", "final": true, "text", "score", "decodeMs"} (decodeMs: end_utt + hyp, the wait after the end of speech);
 *   {"id", "partial": text} when asked for, at most every ~160 ms of audio and only when it changed;
 *   {"id", "error": message} when the utterance could not be decoded (the process goes on).
 * One utterance at a time: a frame for another id while one is open ends the open one unreported.
 */
export const STREAM_DECODER_PY = String.raw`
import json, struct, sys, time
from pocketsphinx import Decoder

def main(argv):
    config = Decoder.default_config()
    i = 0
    while i + 1 < len(argv):
        key, value = argv[i], argv[i + 1]
        if value in ('yes', 'no'):
            config.set_boolean(key, value == 'yes')
        else:
            config.set_string(key, value)
        i += 2
    decoder = Decoder(config)
    searches = {}
    out = sys.stdout
    inp = sys.stdin.buffer

    def say(obj):
        out.write(json.dumps(obj) + '\n')
        out.flush()

    def read(n):
        chunks = []
        while n > 0:
            b = inp.read(n)
            if not b:
                return None
            chunks.append(b)
            n -= len(b)
        return b''.join(chunks)

    failed = set()

    def search_for(lm):
        # The named search of model lm, loaded once; None when it cannot be loaded (a missing or
        # broken file): said once, and the generic model hears what was meant for it.
        if lm in searches:
            return searches[lm]
        if lm in failed:
            return None
        try:
            name = 'lm%d' % len(searches)
            decoder.set_lm_file(name, lm)
            searches[lm] = name
            return name
        except Exception as err:
            failed.add(lm)
            say({'loadFailed': lm, 'error': str(err)})
            return None

    say({'ready': True})
    current = None
    partial = False
    last_partial = ''
    since_partial = 0
    while True:
        head = read(9)
        if head is None:
            return
        kind = head[0:1]
        uid, length = struct.unpack('<II', head[1:9])
        payload = read(length) if length else b''
        if payload is None:
            return
        try:
            if kind == b'L':
                lm = payload.decode('utf-8')
                if lm and search_for(lm) is not None:
                    if current is None:
                        decoder.set_search('_default')
                    say({'loaded': lm})
            elif kind == b'S':
                if current is not None:
                    decoder.end_utt()
                opts = json.loads(payload.decode('utf-8') or '{}')
                lm = opts.get('lm')
                name = search_for(lm) if lm else None
                if name is not None:
                    decoder.set_search(name)
                elif searches:
                    decoder.set_search('_default')
                partial = bool(opts.get('partial'))
                last_partial = ''
                since_partial = 0
                decoder.start_utt()
                current = uid
            elif current != uid:
                continue
            elif kind == b'A':
                decoder.process_raw(payload, False, False)
                if partial:
                    since_partial += len(payload) // 2
                    if since_partial >= 2560:
                        since_partial = 0
                        hyp = decoder.hyp()
                        text = hyp.hypstr if hyp is not None else ''
                        if text != last_partial:
                            last_partial = text
                            say({'id': uid, 'partial': text})
            elif kind == b'E':
                t0 = time.perf_counter()
                decoder.end_utt()
                current = None
                hyp = decoder.hyp()
                say({'id': uid, 'final': True, 'text': hyp.hypstr if hyp is not None else '', 'score': hyp.best_score if hyp is not None else 0, 'decodeMs': round((time.perf_counter() - t0) * 1000, 2)})
            elif kind == b'X':
                decoder.end_utt()
                current = None
        except Exception as err:
            try:
                if current is not None:
                    decoder.end_utt()
            except Exception:
                pass
            current = None
            say({'id': uid, 'error': str(err)})

main(sys.argv[1:])
`;
