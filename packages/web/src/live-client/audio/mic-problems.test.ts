import { describe, expect, it } from 'vitest';
import { recognitionProblem } from './browser-recognition';
import { MicProblemText, micProblemOf } from './mic-capture';

describe('why the microphone cannot be used', () => {
  it('reads getUserMedia’s errors', () => {
    const err = (name: string) => Object.assign(new Error('x'), { name });
    expect(micProblemOf(err('NotAllowedError'))).toBe('denied');
    expect(micProblemOf(err('SecurityError'))).toBe('denied');
    expect(micProblemOf(err('NotFoundError'))).toBe('missing');
    expect(micProblemOf(err('OverconstrainedError'))).toBe('missing');
    expect(micProblemOf(err('NotReadableError'))).toBe('unavailable');
    expect(micProblemOf(new TypeError('insecure'))).toBe('unsupported');
    expect(micProblemOf(null)).toBe('unavailable');
  });

  it('reads the browser recognition’s errors (silence and aborts are not problems)', () => {
    expect(recognitionProblem('not-allowed')).toBe('denied');
    expect(recognitionProblem('service-not-allowed')).toBe('denied');
    expect(recognitionProblem('audio-capture')).toBe('missing');
    expect(recognitionProblem('network')).toBe('unavailable');
    expect(recognitionProblem('no-speech')).toBeNull();
    expect(recognitionProblem('aborted')).toBeNull();
  });

  it('each problem has a sentence that says what to do and that typing still works', () => {
    for (const text of Object.values(MicProblemText)) expect(text).toMatch(/type/i);
  });
});
