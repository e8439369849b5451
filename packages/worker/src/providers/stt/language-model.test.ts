import { describe, expect, it } from 'vitest';
import { buildLanguageModel, dictionaryWords, sentencesOf } from './language-model.js';

/** The ARPA text read back: log10 probabilities and backoff weights per n-gram. */
function readArpa(arpa: string) {
  const grams = new Map<string, { p: number; bo: number }>();
  let order = 0;
  for (const line of arpa.split('\n')) {
    const section = /^\\(\d)-grams:$/.exec(line);
    if (section) {
      order = Number(section[1]);
      continue;
    }
    if (!order || !line.includes('\t')) continue;
    const parts = line.split('\t');
    grams.set(parts[1]!, { p: Number(parts[0]), bo: parts[2] === undefined ? 0 : Number(parts[2]) });
  }
  /** P(w | h) by backing off, as the recogniser reads the model. */
  const prob = (h: string[], w: string): number => {
    const key = [...h, w].join(' ');
    const hit = grams.get(key);
    if (hit) return 10 ** hit.p;
    if (h.length === 0) return 0;
    return 10 ** (grams.get(h.join(' '))?.bo ?? 0) * prob(h.slice(1), w);
  };
  return { grams, prob };
}

const dictionary = dictionaryWords(
  ['hello HH AH L OW', 'hello(2) HH EH L OW', 'how HH AW', 'are AA R', 'you Y UW', 'i AY', 'am AE M', 'fine F AY N', 'thank TH AE NG K', 'open OW P AH N', 'the DH AH', 'shop SH AA P', 'is IH Z', 'at AE T', 'nine N AY N', 'what W AH T', 'time T AY M', "what's W AH T S", 'does D AH Z', 'close K L OW Z', 'twenty T W EH N T IY', 'one W AH N'].join('\n'),
);
const texts = [
  { text: 'Hello, how are you? I am fine, thank you.' },
  { text: "The shop is open at 9. What time does the shop close? What's the time?", weight: 2 },
  { text: 'Hello Zorblax, the shop is open.' },
];

describe('the avatar language model', () => {
  it('reads text as sentences of lower-case words, numbers spelt out', () => {
    expect(sentencesOf("Hi! It's 21 past nine, isn't it?\nOK - 1999")).toEqual([['hi'], ["it's", 'twenty one', 'past', 'nine'].join(' ').split(' '), ["isn't", 'it'], ['ok'], ['one', 'thousand', 'nine', 'hundred', 'ninety', 'nine']]);
    expect([...dictionaryWords('hello HH AH\nhello(2) HH EH\n\nworld W ER')]).toEqual(['hello', 'world']);
  });

  it('is a proper distribution in every context (backoff weights included), and the same bytes every time', () => {
    const built = buildLanguageModel({ texts, dictionary });
    expect(built.outOfVocabulary).toEqual(['zorblax']);
    expect(buildLanguageModel({ texts, dictionary }).arpa).toBe(built.arpa);
    const { grams, prob } = readArpa(built.arpa);
    expect(grams.has('zorblax')).toBe(false);
    const vocab = [...grams.keys()].filter((k) => !k.includes(' ') && k !== '<s>');
    expect(vocab).toContain('</s>');
    // Every context seen, and some never seen: the probabilities of the next word sum to 1.
    const contexts = [[], ['<s>'], ['the'], ['shop'], ['<s>', 'hello'], ['the', 'shop'], ['what', 'time'], ['hello', 'thank'], ['fine', 'open'], ['nine']];
    for (const h of contexts) {
      const total = vocab.reduce((sum, w) => sum + prob(h, w), 0);
      expect(total, h.join(' ')).toBeCloseTo(1, 4);
    }
    // What was said more often is more likely: "the shop" is; an n-gram with the unknown word is not counted.
    expect(prob(['the'], 'shop')).toBeGreaterThan(0.3);
    expect(prob(['the'], 'shop')).toBeGreaterThan(prob(['the'], 'time'));
    expect(prob(['<s>', 'what'], 'time')).toBeGreaterThan(prob(['<s>', 'what'], 'fine'));
    expect(grams.has('hello the')).toBe(false);
    expect(built.ngrams[0]).toBe(vocab.length + 1);
  });

  it('lists every word of every n-gram as a unigram, also a word seen only after an unknown one; refuses a weight that is not a whole number', () => {
    // "fine" comes only after the unknown "Zorblax".
    const built = buildLanguageModel({ texts: [{ text: 'I am Zorblax fine. Hello, the shop is open.' }], dictionary });
    const { grams, prob } = readArpa(built.arpa);
    for (const key of grams.keys()) for (const w of key.split(' ')) expect(grams.has(w), `${w} (in "${key}")`).toBe(true);
    expect(grams.has('fine </s>')).toBe(true);
    const vocab = [...grams.keys()].filter((k) => !k.includes(' ') && k !== '<s>');
    for (const h of [[], ['<s>'], ['fine'], ['the']]) expect(vocab.reduce((sum, w) => sum + prob(h, w), 0), h.join(' ')).toBeCloseTo(1, 4);
    expect(() => buildLanguageModel({ texts: [{ text: 'Hello.', weight: 0 }], dictionary })).toThrow(/whole number/);
    expect(() => buildLanguageModel({ texts: [{ text: 'Hello.', weight: 1.5 }], dictionary })).toThrow(/whole number/);
  });

  it('weights a text by repeating it (in the full context: lower orders count the words that precede, not how often)', () => {
    const once = readArpa(buildLanguageModel({ texts: [{ text: 'Hello. The shop.' }, { text: 'The time.' }], dictionary }).arpa);
    const thrice = readArpa(buildLanguageModel({ texts: [{ text: 'Hello. The shop.' }, { text: 'The time.', weight: 3 }], dictionary }).arpa);
    expect(thrice.prob(['<s>', 'the'], 'time')).toBeGreaterThan(once.prob(['<s>', 'the'], 'time'));
  });
});
