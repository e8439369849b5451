import { describe, expect, it } from 'vitest';
import { answerActions, AnswerActions } from './answer-actions.js';
import { MAX_CUES, MoodCue, sentenceMood } from './mood-cue.js';

describe('mood cue: a light mood from the tone of an untagged answer', () => {
  it('reads a few phrases, conservatively', () => {
    expect(sentenceMood("I'm sorry, that room is closed today.")?.mood).toBe('concerned');
    expect(sentenceMood('Unfortunately the shop is shut.')?.mood).toBe('concerned');
    expect(sentenceMood('Great, I am glad it worked.')?.mood).toBe('happy');
    expect(sentenceMood('See you soon!')?.mood).toBe('happy');
    expect(sentenceMood('Which day would suit you?')?.mood).toBe('thinking');
    expect(sentenceMood('Wow, that is a lot of books.')?.mood).toBe('surprised');
    expect(sentenceMood('I am so sorry for your loss.')?.mood).toBe('sad');
    expect(sentenceMood('Sorry!')?.mood).toBe('concerned');
    expect(sentenceMood('The museum opens at nine.')).toBeNull();
    expect(sentenceMood('It is a great-grandfather clock')?.mood).toBe('happy');
    expect(sentenceMood('...')).toBeNull();
  });

  it('gives a mood at the start of its sentence, only when it changes, at most MAX_CUES times', () => {
    const cue = new MoodCue();
    const text = 'The museum opens at nine. Sorry, the café is closed. Sorry again. Great news though! Any other questions? Wow. Lovely!';
    const out = [...cue.push(text.slice(0, 40)), ...cue.push(text.slice(40)), ...cue.end()];
    expect(out.map((c) => [c.mood, text.slice(c.at, c.at + 6)])).toEqual([
      ['concerned', 'Sorry,'],
      ['happy', 'Great '],
      ['thinking', 'Any ot'],
    ]);
    expect(out).toHaveLength(MAX_CUES);
    expect(out.every((c) => c.intensity <= 0.5 && c.durationMs > 0)).toBe(true);
  });

  it('a sentence that streams in pieces is read once it is complete; the last one at the end', () => {
    const cue = new MoodCue();
    expect(cue.push('Unfortu')).toEqual([]);
    expect(cue.push('nately not')).toEqual([]);
    expect(cue.push('. Next')).toHaveLength(1);
    expect(cue.end()).toEqual([]);
    const tail = new MoodCue();
    expect(tail.push('Happy to help!')).toEqual([]);
    expect(tail.end()).toMatchObject([{ mood: 'happy', at: 0 }]);
  });

  it('an answer with a tag gets no cue from then on; an answer without gets them', () => {
    expect(answerActions("<trl-mood id='sad'/>Sorry, we are closed. Great that you asked!").filter((p) => p.type === 'action')).toEqual([
      { type: 'action', action: { kind: 'mood', mood: 'sad' }, source: 'tag', at: 0 },
    ]);
    const plain = answerActions('Sorry, we are closed.');
    expect(plain).toEqual([
      { type: 'text', text: 'Sorry, we are closed.' },
      { type: 'action', action: { kind: 'mood', mood: 'concerned', intensity: 0.45, durationMs: 5000 }, source: 'cue', at: 0 },
    ]);
    // Streamed: offsets count the text given out, without the tags.
    const a = new AnswerActions();
    const pieces = [...a.push('Hi. <trl-ges'), ...a.push("ture id='wave'/>Bye.")];
    expect(pieces).toEqual([
      { type: 'text', text: 'Hi. ' },
      { type: 'action', action: { kind: 'gesture', gesture: 'wave' }, source: 'tag', at: 4 },
      { type: 'text', text: 'Bye.' },
    ]);
  });
});
