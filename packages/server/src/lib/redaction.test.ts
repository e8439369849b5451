import { describe, expect, it } from 'vitest';
import { DefaultRedaction } from '@persona/contract';
import { checkPattern, createRedactor, ibanValid, luhnValid } from './redaction.js';

const all = createRedactor({ email: true, phone: true, card: true, iban: true, patterns: [] })!;

describe('redaction (ADR 097)', () => {
  it('is off by default: no redactor at all', () => {
    expect(createRedactor(DefaultRedaction)).toBeNull();
  });

  it('replaces e-mail addresses', () => {
    expect(all('Write to jane.doe+news@mail.example.co.uk, or to J_S@x.io.')).toBe('Write to [email], or to [email].');
    // Near misses: no domain dot, no local part, a handle.
    expect(all('user@localhost and @handle and a@b')).toBe('user@localhost and @handle and a@b');
  });

  it('replaces Luhn-valid card numbers of 13–19 digits with spaces or dashes, not others', () => {
    expect(all('card 4111 1111 1111 1111 ok')).toBe('card [card] ok');
    expect(all('card 4111-1111-1111-1111.')).toBe('card [card].');
    expect(all('amex 378282246310005 and visa13 4222222222222')).toBe('amex [card] and visa13 [card]');
    expect(all('19 digits 6011 0009 9013 9424 000')).toMatch(/\[card\]|6011/);
    // Invalid Luhn, too long for a phone: kept.
    expect(all('not a card 4111 1111 1111 1112')).toBe('not a card 4111 1111 1111 1112');
    // 20 digits: too long for a card.
    expect(all('ref 41111111111111111111')).toBe('ref 41111111111111111111');
    // Two separators in a row break the number.
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
  });

  it('replaces IBANs that pass mod 97, written compact or in groups, not near misses', () => {
    expect(all('IBAN DE89 3704 0044 0532 0130 00 THANKS')).toBe('IBAN [iban] THANKS');
    expect(all('GB82WEST12345698765432.')).toBe('[iban].');
    expect(all('FR14 2004 1010 0505 0001 3M02 606')).toBe('[iban]');
    expect(all('DE89 3704 0044 0532 0130 00 AB CD')).toBe('[iban] AB CD');
    // One digit changed: the checksum fails.
    expect(all('DE89 3704 0044 0532 0130 01')).not.toContain('[iban]');
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
  });

  it('replaces phone numbers, not dates, times, prices or short numbers', () => {
    expect(all('Call +49 30 1234567 or (030) 123-4567 or 0044 20 7946 0958 today')).toBe('Call [phone] or [phone] or [phone] today');
    expect(all('US 555-123-4567.')).toBe('US [phone].');
    expect(all('On 2026-11-30 at 10:30 it costs 1,299.00 for 12 people, room 4711')).toBe('On 2026-11-30 at 10:30 it costs 1,299.00 for 12 people, room 4711');
    expect(all('on 30.11.2026')).toBe('on 30.11.2026');
  });

  it('applies only what is switched on (a text remembered by one redactor is not another’s answer)', () => {
    const text = 'a@b.de 4111 1111 1111 1111 +49 30 1234567';
    expect(all(text)).toBe('[email] [card] [phone]');
    const emails = createRedactor({ ...DefaultRedaction, email: true })!;
    expect(emails(text)).toBe('[email] 4111 1111 1111 1111 +49 30 1234567');
    expect(emails(text)).toBe('[email] 4111 1111 1111 1111 +49 30 1234567');
    expect(all(text)).toBe('[email] [card] [phone]');
  });

  it('replaces the customer’s patterns with [redacted]', () => {
    const own = createRedactor({ ...DefaultRedaction, patterns: ['ORD-[0-9]{6}', 'Patient [A-Z][a-z]+'] })!;
    expect(own('Order ORD-123456 for Patient Miller, ORD-12 stays')).toBe('Order [redacted] for [redacted], ORD-12 stays');
  });

  it('refuses patterns that could backtrack, match nothing, or are not expressions', () => {
    expect(checkPattern('(a)\\1')).not.toBeNull();
    expect(checkPattern('(?=a)b')).not.toBeNull();
    expect(checkPattern('a{2,100}')).not.toBeNull();
    expect(checkPattern('a*')).not.toBeNull();
    expect(checkPattern('(')).not.toBeNull();
    expect(checkPattern('(a+)+$')).toBeNull();
  });

  it('runs in linear time on hostile input (no ReDoS), its own patterns and the customer’s', () => {
    const evil = createRedactor({ email: true, phone: true, card: true, iban: true, patterns: ['(a+)+$', '(x|x)*y', '([a-z]+)*@'] })!;
    const inputs = ['a'.repeat(50_000) + '!', 'x'.repeat(50_000), `${'a.'.repeat(20_000)}@`, `${'1 '.repeat(20_000)}x`, `DE${'1 '.repeat(20_000)}`, `DE89 ${'3704 '.repeat(20_000)}`, `DE89 3704 0044 0532 0130 00 ${'AB '.repeat(20_000)}`, `+${'1-'.repeat(20_000)}`];
    for (const input of inputs) {
      const started = performance.now();
      evil(input);
      // A backtracking engine takes minutes on the first one; the linear one a few milliseconds.
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('skips a stored pattern that became invalid rather than failing the conversation', () => {
    const r = createRedactor({ ...DefaultRedaction, email: true, patterns: ['(a)\\1'] })!;
    expect(r('aa x@y.com')).toBe('aa [email]');
  });
});
