import { describe, expect, it } from 'vitest';
import {
  CharacterAligner,
  VISEMES,
  azureViseme,
  marksToVisemes,
  numberToWords,
  phoneToVisemes,
  phonesToVisemes,
  pollyViseme,
  shiftVisemes,
  spellWord,
  textToVisemes,
  textToWords,
  tokenize,
  wordsToVisemes,
  type VisemeItem,
} from './visemes.js';

const shapes = (word: string) => spellWord(word).map((s) => s.v);

/** Timeline sanity: valid names, ordered, no overlaps, within [start, end]. */
function expectTimeline(items: VisemeItem[], start: number, end: number) {
  expect(items.length).toBeGreaterThan(0);
  for (const it of items) expect(VISEMES).toContain(it.v);
  for (let k = 1; k < items.length; k++) expect(items[k]!.t).toBeGreaterThanOrEqual(items[k - 1]!.t + items[k - 1]!.d - 0.2);
  expect(items[0]!.t).toBeGreaterThanOrEqual(start - 0.1);
  const last = items[items.length - 1]!;
  expect(last.v).toBe('sil');
  expect(last.t).toBeCloseTo(end, 0);
}

describe('letters → visemes (English rules)', () => {
  it.each([
    ['hello', ['E', 'nn', 'O']],
    ['thing', ['TH', 'I', 'kk']],
    ['make', ['PP', 'E', 'I', 'kk']],
    ['time', ['DD', 'aa', 'I', 'PP']],
    ['phone', ['FF', 'O', 'nn']],
    ['judge', ['CH', 'aa', 'CH']],
    ['church', ['CH', 'E', 'RR', 'CH']],
    ['school', ['SS', 'kk', 'U', 'nn']],
    ['quick', ['kk', 'U', 'I', 'kk']],
    ['night', ['nn', 'aa', 'I', 'DD']],
    ['knife', ['nn', 'aa', 'I', 'FF']],
    ['city', ['SS', 'I', 'DD', 'I']],
    ['nation', ['nn', 'E', 'I', 'CH', 'E', 'nn']],
    ['played', ['PP', 'nn', 'E', 'I', 'DD']],
    ['wanted', ['U', 'aa', 'nn', 'DD', 'E', 'DD']],
    ['boxes', ['PP', 'aa', 'kk', 'SS', 'I', 'SS']],
    ['my', ['PP', 'aa', 'I']],
    ['happy', ['aa', 'PP', 'I']],
    ['the', ['TH', 'E']],
    ['you', ['I', 'U']],
    ['music', ['PP', 'U', 'SS', 'I', 'kk']],
    ['but', ['PP', 'aa', 'DD']],
  ])('%s → %j', (word, expected) => {
    expect(shapes(word)).toEqual(expected);
  });

  it('every word gives only Oculus visemes, with positive weights and the letters they came from', () => {
    for (const w of ['extraordinary', 'rhythm', 'queueing', "don't", 'xylophone', 'Tschüss', 'aaaa', 'zzz', 'a']) {
      for (const s of spellWord(w)) {
        expect(VISEMES).toContain(s.v);
        expect(s.w).toBeGreaterThan(0);
        expect(s.from).toBeGreaterThanOrEqual(0);
        expect(s.to).toBeLessThanOrEqual(w.length);
      }
    }
  });

  it('reads numbers, decimals and a few symbols as words; punctuation becomes pauses', () => {
    expect(numberToWords('0')).toBe('zero');
    expect(numberToWords('42')).toBe('forty two');
    expect(numberToWords('1999')).toBe('one thousand nine hundred ninety nine');
    expect(numberToWords('3000000')).toBe('three million');
    const toks = tokenize('It costs 3.5% more, OK?');
    expect(toks).toEqual([{ word: 'It' }, { word: 'costs' }, { word: 'three' }, { word: 'point' }, { word: 'five' }, { word: 'percent' }, { word: 'more' }, { pause: 2.2 }, { word: 'OK' }]);
  });
});

describe('text → timeline scaled to the audio', () => {
  it('fills exactly the speech, in order, and closes the mouth at its end', () => {
    const items = textToVisemes('Hello there, how are you?', 1500, 40);
    expectTimeline(items, 40, 1540);
    // The comma is a pause: a silence in the middle of the timeline.
    expect(items.slice(1, -1).some((i) => i.v === 'sil' && i.d > 50)).toBe(true);
  });

  it('a longer audio stretches the same shapes', () => {
    const a = textToVisemes('Good morning', 800);
    const b = textToVisemes('Good morning', 1600);
    expect(b.map((x) => x.v)).toEqual(a.map((x) => x.v));
    expect(b[2]!.t).toBeCloseTo(a[2]!.t * 2, 0);
  });

  it('estimates word times over the same span', () => {
    const words = textToWords('One two, three.', 1000);
    expect(words.map((w) => w.w)).toEqual(['One', 'two', 'three']);
    expect(words[0]!.t).toBe(0);
    expect(words[2]!.t + words[2]!.d).toBeCloseTo(1000, 0);
  });

  it('nothing to say → no timeline', () => {
    expect(textToVisemes('…', 500)).toEqual([]);
    expect(textToVisemes('Hi', 0)).toEqual([]);
  });
});

describe('provider marks → Oculus', () => {
  it('Polly: every viseme of its English table maps, silence included', () => {
    const table: Record<string, string> = { p: 'PP', t: 'DD', S: 'CH', T: 'TH', f: 'FF', k: 'kk', i: 'I', r: 'RR', s: 'SS', u: 'U', '@': 'E', a: 'aa', e: 'E', E: 'E', o: 'O', O: 'O', l: 'nn', sil: 'sil' };
    for (const [polly, oculus] of Object.entries(table)) expect(pollyViseme(polly)).toBe(oculus);
    expect(pollyViseme('?')).toBeNull();
  });

  it('Azure: ids 0–21 map (p b m → PP, f v → FF, s z → SS, k g ŋ → kk, …), others do not', () => {
    const expected = ['sil', 'aa', 'aa', 'O', 'E', 'E', 'I', 'U', 'O', 'aa', 'O', 'aa', 'kk', 'RR', 'nn', 'SS', 'CH', 'TH', 'FF', 'DD', 'kk', 'PP'];
    expected.forEach((v, id) => expect(azureViseme(id)).toBe(v));
    expect(azureViseme(22)).toBeNull();
    expect(azureViseme(-1)).toBeNull();
    expect(azureViseme(1.5)).toBeNull();
  });

  it('point marks become spans that run to the next mark', () => {
    const items = marksToVisemes(
      [
        { t: 0, v: 'sil' },
        { t: 120, v: 'PP' },
        { t: 200, v: 'aa' },
        { t: 200, v: null },
        { t: 350, v: 'sil' },
      ],
      500,
    );
    expect(items).toEqual([
      { t: 0, v: 'sil', d: 120 },
      { t: 120, v: 'PP', d: 80 },
      { t: 200, v: 'aa', d: 150 },
      { t: 350, v: 'sil', d: 150 },
    ]);
  });

  it('flite’s phones (ARPAbet) all map; diphthongs are two shapes', () => {
    const flite = 'pau aa ae ah ao aw ax ay b ch d dh eh er ey f g hh ih iy jh k l m n ng ow oy p r s sh t th uh uw v w y z zh'.split(' ');
    for (const p of flite) expect(phoneToVisemes(p, 'arpabet').length).toBeGreaterThan(0);
    expect(phoneToVisemes('ay', 'arpabet').map((x) => x.v)).toEqual(['aa', 'I']);
    expect(phoneToVisemes('m', 'arpabet').map((x) => x.v)).toEqual(['PP']);
    expect(phoneToVisemes('pau', 'arpabet').map((x) => x.v)).toEqual(['sil']);
  });

  it('IPA phonemes (Cartesia) map, with stress and length marks ignored', () => {
    const v = (p: string) => phoneToVisemes(p, 'ipa').map((x) => x.v);
    expect(['h', 'ə', 'l', 'oʊ'].flatMap(v)).toEqual(['kk', 'E', 'nn', 'O', 'U']);
    expect(v('ˈaɪ')).toEqual(['aa', 'I']);
    expect(v('iː')).toEqual(['I']);
    expect(v('tʃ')).toEqual(['CH']);
    expect(v('θ')).toEqual(['TH']);
  });

  it('phones with times → visemes inside each phone’s span', () => {
    const items = phonesToVisemes(
      [
        { phone: 'pau', startMs: 0, endMs: 160 },
        { phone: 'hh', startMs: 160, endMs: 250 },
        { phone: 'ay', startMs: 250, endMs: 450 },
        { phone: 'pau', startMs: 450, endMs: 600 },
      ],
      'arpabet',
    );
    expect(items.map((i) => [i.v, i.t])).toEqual([
      ['sil', 0],
      ['kk', 160],
      ['aa', 250],
      // a diphthong's parts share its span by weight (aa 1.4, I 1.0)
      ['I', 366.7],
      ['sil', 450],
    ]);
  });

  it('character alignment (ElevenLabs) puts each letter group at its letters’ time, also across pieces', () => {
    const text = 'Hi them.';
    const chars = [...text];
    const starts = chars.map((_, k) => k * 100);
    const ends = chars.map((_, k) => k * 100 + 100);
    const whole = new CharacterAligner();
    const all = whole.push(chars, starts, ends);
    const rest = whole.end();
    const visemes = [...all.visemes, ...rest.visemes];
    expect([...all.words, ...rest.words].map((w) => [w.w, w.t, w.d])).toEqual([
      ['Hi', 0, 200],
      ['them', 300, 400],
    ]);
    // "th" (characters 3–4) → TH at 300, lasting both letters; "m" (character 6) → PP at 600
    expect(visemes.find((v) => v.v === 'TH')).toMatchObject({ t: 300, d: 200 });
    expect(visemes.find((v) => v.v === 'PP')).toMatchObject({ t: 600, d: 100 });
    // split in the middle of "them"
    const split = new CharacterAligner();
    const a = split.push(chars.slice(0, 5), starts.slice(0, 5), ends.slice(0, 5));
    expect(a.words.map((w) => w.w)).toEqual(['Hi']);
    const b = split.push(chars.slice(5), starts.slice(5), ends.slice(5));
    const c = split.end();
    expect([...a.visemes, ...b.visemes, ...c.visemes]).toEqual(visemes);
  });

  it('word times (Cartesia without phonemes) → the word’s letters within its span, silence between words', () => {
    const items = wordsToVisemes([
      { word: 'Hello', startMs: 100, endMs: 400 },
      { word: 'world.', startMs: 600, endMs: 900 },
    ]);
    expectTimeline(items, 100, 900);
    expect(items.find((i) => i.v === 'sil' && i.t === 400)).toMatchObject({ d: 200 });
    for (const i of items.filter((x) => x.v !== 'sil')) expect((i.t >= 100 && i.t < 400) || (i.t >= 600 && i.t < 900)).toBe(true);
  });

  it('shifting by a cut lead drops what falls before 0 and clips what straddles it', () => {
    const items: VisemeItem[] = [
      { t: 0, v: 'sil', d: 150 },
      { t: 150, v: 'PP', d: 100 },
      { t: 250, v: 'aa', d: 200 },
    ];
    expect(shiftVisemes(items, -200)).toEqual([
      { t: 0, v: 'PP', d: 50 },
      { t: 50, v: 'aa', d: 200 },
    ]);
  });
});
