import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DATE_MS_MAX, INT32_MAX, InputMessages, TextChecks, ZId, ZIdJsonFile, zDateMs, zId, zText } from './common.js';

describe('ids', () => {
  it('accept positive int32 numbers and their decimal digits', () => {
    expect(ZId.parse(1)).toBe(1);
    expect(ZId.parse('42')).toBe(42);
    expect(ZId.parse(INT32_MAX)).toBe(INT32_MAX);
  });

  it.each([0, -1, 1.5, INT32_MAX + 1, 3000000000, Infinity, Number.NaN, '3000000000', '0x10', '1e3', ' 1', '', [1], true, null, {}])('refuse %j', (v) => {
    const res = ZId.safeParse(v);
    expect(res.success).toBe(false);
    expect(res.error!.issues[0]!.message).toBe(InputMessages.idInvalid);
  });

  it('keeps a custom message and works inside zod objects', () => {
    const schema = z.object({ vpsId: zId('VPS is invalid'), other: z.optional(z.nullable(ZId)) });
    expect(schema.safeParse({ vpsId: 3000000000 }).error!.issues.map((i) => i.message)).toEqual(['VPS is invalid']);
    expect(schema.parse({ vpsId: '7', other: null })).toEqual({ vpsId: 7, other: null });
  });

  it('reads <id>.json file names', () => {
    expect(ZIdJsonFile.parse('12.json')).toBe(12);
    expect(ZIdJsonFile.safeParse('3000000000.json').success).toBe(false);
    expect(ZIdJsonFile.safeParse('99999999999999999999.json').success).toBe(false);
  });
});

describe('dates in ms', () => {
  it('stay between 1970 and the end of 9999', () => {
    expect(zDateMs().parse(0)).toBe(0);
    expect(zDateMs().parse(String(DATE_MS_MAX))).toBe(DATE_MS_MAX);
    for (const v of [-1, DATE_MS_MAX + 1, 8.64e15, 1e20, Infinity, '8640000000000000', 'x']) expect(zDateMs().safeParse(v).success).toBe(false);
  });
});

describe('text', () => {
  it('single-line text refuses every control character, multi-line keeps line breaks and tabs', () => {
    const single = z.string().check(TextChecks.singleLine());
    const multi = z.string().check(TextChecks.multiLine());
    for (const c of ['\u0000', '\u0001', '\u001b', '\u007f', '\n', '\t']) expect(single.safeParse(`a${c}b`).success).toBe(false);
    for (const c of ['\n', '\r\n', '\t']) expect(multi.safeParse(`a${c}b`).success).toBe(true);
    for (const c of ['\u0000', '\u0008', '\u000b', '\u001b', '\u007f']) expect(multi.safeParse(`a${c}b`).success).toBe(false);
    expect(single.parse('Zoë – ok')).toBe('Zoë – ok');
  });

  it('zText trims, bounds and refuses control characters', () => {
    const name = zText({ max: 5, min: 1, error: 'Name is required' });
    expect(name.parse('  Ada ')).toBe('Ada');
    expect(name.safeParse('   ').error!.issues[0]!.message).toBe('Name is required');
    expect(name.safeParse('abcdef').success).toBe(false);
    expect(name.safeParse('a\u0000').error!.issues[0]!.message).toBe(InputMessages.controlChars);
    expect(zText({ max: 20, multiLine: true }).parse('line 1\nline 2')).toBe('line 1\nline 2');
  });
});
