import { describe, expect, it } from 'vitest';
import { SpeechChunker, cleanForSpeech, type ChunkerOptions, type SpeechPiece } from './chunker.js';

/** Feeds `text` in deltas of `step` characters (as a model streams it) and returns the pieces. */
function pieces(text: string, step = 3, options?: ChunkerOptions): SpeechPiece[] {
  const c = new SpeechChunker(options);
  const out: SpeechPiece[] = [];
  for (let i = 0; i < text.length; i += step) out.push(...c.push(text.slice(i, i + step)));
  out.push(...c.flush());
  return out;
}
const texts = (text: string, step = 3, options?: ChunkerOptions) => pieces(text, step, options).map((p) => p.text);
const clean = (md: string) => cleanForSpeech(md, { inFence: false, atLineStart: true }, 'end');

describe('cutting the stream into speakable pieces', () => {
  it('the first piece is out at the first clause; later pieces are whole sentences', () => {
    const out = pieces('Of course, I can help with that. The museum opens at nine every morning. It closes at five in the evening, except on Mondays when it is closed all day.');
    expect(out.map((p) => [p.text, p.boundary])).toEqual([
      ['Of course,', 'clause'],
      ['I can help with that.', 'sentence'],
      ['The museum opens at nine every morning.', 'sentence'],
      ['It closes at five in the evening, except on Mondays when it is closed all day.', 'sentence'],
    ]);
  });

  it('a piece is handed out as soon as it is complete, before the rest of the answer arrives', () => {
    const c = new SpeechChunker();
    expect(c.push('Hello there! How')).toEqual([{ index: 0, text: 'Hello there!', boundary: 'sentence', rawStart: 0, rawEnd: 13 }]);
    expect(c.push(' are you')).toEqual([]);
    expect(c.flush()).toEqual([{ index: 1, text: 'How are you', boundary: 'end', rawStart: 13, rawEnd: 24 }]);
  });

  it('waits for the character after a full stop before deciding (a decimal may follow)', () => {
    const c = new SpeechChunker();
    expect(c.push('It costs 3.')).toEqual([]);
    expect(c.push('50 euros. And')).toEqual([{ index: 0, text: 'It costs 3.50 euros.', boundary: 'sentence', rawStart: 0, rawEnd: 21 }]);
  });

  it('does not cut at abbreviations, titles, initials, list numbers or an ellipsis that goes on', () => {
    expect(texts('Dr. Smith and Mr. Jones met e.g. at 5 p.m. on Main St. yesterday. Next sentence here.', 4)).toEqual([
      'Dr. Smith and Mr. Jones met e.g. at 5 p.m. on Main St. yesterday.',
      'Next sentence here.',
    ]);
    expect(texts('J. R. R. Tolkien wrote it, see No. 5 or p. 12 for more. Well... maybe not, who knows.', 5)).toEqual([
      'J. R. R. Tolkien wrote it,',
      'see No. 5 or p. 12 for more.',
      'Well... maybe not, who knows.',
    ]);
    expect(texts('The answer is no. Next one.', 2)).toEqual(['The answer is no.', 'Next one.']);
  });

  it('ends a sentence at ?, ! and quotes or brackets after them', () => {
    expect(texts('Really?! "Yes." (Fine.) Then we go on with a much longer sentence.', 2)).toEqual(['Really?!', '"Yes." (Fine.) Then we go on with a much longer sentence.']);
  });

  it('short sentences after the first wait to be joined; long ones are cut at a clause mark', () => {
    const long = 'The collection includes paintings from the early Renaissance, sculptures from ancient Greece and Rome, and a large number of prints, drawings and photographs from the twentieth century that are shown in rotation.';
    const out = texts(`Hi! Yes. No. ${long}`, 7);
    expect(out[0]).toBe('Hi!');
    expect(out[1]).toBe('Yes. No. The collection includes paintings from the early Renaissance, sculptures from ancient Greece and Rome,');
    expect(out.slice(2).join(' ')).toBe('and a large number of prints, drawings and photographs from the twentieth century that are shown in rotation.');
    for (const p of out) expect(p.length).toBeLessThanOrEqual(240);
  });

  it('cuts at a word when a long stretch has no mark at all (first piece early, later ones at maxChars)', () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const out = pieces(words, 5);
    expect(out[0]!.boundary).toBe('forced');
    expect(out[0]!.text.length).toBeLessThanOrEqual(70);
    expect(out[0]!.text.length).toBeGreaterThanOrEqual(55);
    for (const p of out.slice(1, -1)) expect(p.text.length).toBeLessThanOrEqual(250);
    expect(out.map((p) => p.text).join(' ')).toBe(words);
  });

  it('gives the same pieces whatever the size of the deltas', () => {
    const text = 'Sure, here you go. The **Louvre** is in Paris, France; it opened in 1793. See [the site](https://louvre.fr) for tickets!\n\n- Monday: closed\n- Tuesday: 9 to 6';
    const reference = texts(text, 1);
    for (const step of [2, 3, 7, 50, 1000]) expect(texts(text, step)).toEqual(reference);
  });

  it('list items and headings are pieces of their own, with a full stop so they are said as such', () => {
    const out = pieces('## Opening hours\n\n1. Monday: closed\n2. Tuesday: nine to six\n\nThat is all.', 4);
    expect(out.map((p) => p.text)).toEqual(['Opening hours.', 'Monday: closed.', 'Tuesday: nine to six.', 'That is all.']);
  });

  it('nothing to say → no piece (only emoji, only a URL, only a code block)', () => {
    expect(pieces('😀👍🏽 ')).toEqual([]);
    expect(pieces('https://example.com/a/b?c=d')).toEqual([]);
    expect(pieces('```python\nprint("hi")\nx = 1\n```\n')).toEqual([]);
  });

  it('numbers its pieces and keeps going after a dropped one', () => {
    const out = pieces('First part, with words.\n😀\nSecond one.');
    expect(out.map((p) => [p.index, p.text])).toEqual([
      [0, 'First part,'],
      [1, 'with words.'],
      [2, 'Second one.'],
    ]);
  });
});

describe('what is spoken (the chat keeps the text as it was)', () => {
  it('strips emphasis, headings, quote and list markers, and keeps inline code as its text', () => {
    expect(clean('**Bold** and *italic* and __under__ and ~~gone~~ with `npm install`.')).toBe('Bold and italic and under and gone with npm install.');
    expect(clean('### A heading')).toBe('A heading');
    expect(clean('> quoted words')).toBe('quoted words');
    expect(clean('- [x] a done task')).toBe('a done task');
    expect(clean('snake_case_name stays')).toBe('snake_case_name stays');
  });

  it('links and images → their text; bare URLs, HTML tags, footnotes and emoji are not read', () => {
    expect(clean('Read [the guide](https://ex.com/guide "Guide") or visit https://ex.com/x?y=1 now.')).toBe('Read the guide or visit now.');
    expect(clean('A photo ![a cat](cat.png) here<br/> and <b>bold</b>[^1].')).toBe('A photo here and bold.');
    expect(clean('Great job 🎉🎉 👩‍👩‍👧 1️⃣ 🇫🇷!')).toBe('Great job!');
    expect(clean('See the docs (https://ex.com).')).toBe('See the docs.');
  });

  it('tables are read row by row; rules and fences are not read', () => {
    expect(clean('| Day | Hours |\n|---|:---:|\n| Mon | 9-5 |')).toBe('Day, Hours. Mon, 9-5');
    expect(clean('Before\n---\nAfter')).toBe('Before. After');
    expect(clean('Run this:\n```bash\nrm -rf /tmp/x\n```\nDone.')).toBe('Run this: Done.');
  });

  it('a link or a code fence split across two pieces is still cleaned', () => {
    const c = new SpeechChunker();
    const out = [
      ...c.push('Here is a first sentence that is long enough to be cut, and [a link'),
      ...c.push(' text](https://example.com/path) after it.\n```js\nconst x = 1;\n'),
      ...c.push('```\nThe end.'),
      ...c.flush(),
    ].map((p) => p.text);
    expect(out.join(' ')).toBe('Here is a first sentence that is long enough to be cut, and a link text after it. The end.');
  });
});
