import { describe, expect, it } from 'vitest';
import { ZAvatarAction, type TAvatarAction } from '@persona/contract';
import { AvatarTagParser, MAX_TAG_CHARS, parseAvatarTags, tagAction, type TagPiece } from './avatar-tags.js';

/** Text and actions of a run, with each action's place in the text. */
function collect(pieces: TagPiece[]) {
  let text = '';
  const actions: { at: number; action: TAvatarAction }[] = [];
  for (const p of pieces) {
    if (p.type === 'text') text += p.text;
    else actions.push({ at: text.length, action: p.action });
  }
  return { text, actions };
}

function streamed(deltas: string[]) {
  const parser = new AvatarTagParser();
  return collect([...deltas.flatMap((d) => parser.push(d)), ...parser.end()]);
}

const SAMPLE = `<trl-mood id='happy' intensity="0.8" />Hello there! <trl-anim immediate='true' type='aux' id='nod' />I can help. 3 < 4 and <b>bold</b>. <TRL-MORPH NAME="concerned" VALUE='50%' DURATION="2.5"/>Sorry.`;
const SAMPLE_TEXT = 'Hello there! I can help. 3 < 4 and <b>bold</b>. Sorry.';

describe('avatar tags: taken out of the text, made actions at their place', () => {
  it('reads moods, gestures and morphs, in both quote styles and any case', () => {
    const { text, actions } = collect(parseAvatarTags(SAMPLE));
    expect(text).toBe(SAMPLE_TEXT);
    expect(actions).toEqual([
      { at: 0, action: { kind: 'mood', mood: 'happy', intensity: 0.8 } },
      { at: 'Hello there! '.length, action: { kind: 'gesture', gesture: 'nod' } },
      { at: 'Hello there! I can help. 3 < 4 and <b>bold</b>. '.length, action: { kind: 'mood', mood: 'concerned', intensity: 0.5, durationMs: 2500 } },
    ]);
  });

  it('gives the same text and actions at every split point of the sample (tags cut across tokens)', () => {
    const whole = streamed([SAMPLE]);
    expect(whole.text).toBe(SAMPLE_TEXT);
    for (let i = 0; i <= SAMPLE.length; i++) {
      expect(streamed([SAMPLE.slice(0, i), SAMPLE.slice(i)]), `split at ${i}`).toEqual(whole);
    }
    // …and one character at a time.
    expect(streamed([...SAMPLE])).toEqual(whole);
  });

  it('every split point into three pieces around the first tag', () => {
    const sample = SAMPLE.slice(0, 60);
    const whole = streamed([sample]);
    for (let i = 0; i <= sample.length; i++) for (let j = i; j <= sample.length; j++) expect(streamed([sample.slice(0, i), sample.slice(i, j), sample.slice(j)])).toEqual(whole);
  });

  it('a `<` that is no trl tag passes through unchanged, also at the end of a delta', () => {
    const parser = new AvatarTagParser();
    expect(parser.push('a <')).toEqual([{ type: 'text', text: 'a ' }]);
    expect(parser.push('b> c')).toEqual([{ type: 'text', text: '<b> c' }]);
    expect(streamed(['x <t', 'r', 'y> <tr', 'l> <trl', ' nope>'])).toEqual({ text: 'x <try> <trl> <trl nope>', actions: [] });
    expect(streamed(['1 <', '2'])).toEqual({ text: '1 <2', actions: [] });
    expect(streamed(['ends with <'])).toEqual({ text: 'ends with <', actions: [] });
  });

  it('unknown trl tags and closing tags are taken out and do nothing; unknown gesture names do nothing', () => {
    expect(streamed(['a <trl-dance style="x"/>b</trl-speak>c'])).toEqual({ text: 'a bc', actions: [] });
    expect(streamed(["<trl-gesture id='juggle'/>hi <trl-mood id='furious'/>"])).toEqual({ text: 'hi ', actions: [] });
    expect(streamed(["<trl-anim/>x"])).toEqual({ text: 'x', actions: [] });
  });

  it('other Trulience tags are passed on with their attributes', () => {
    const { actions } = streamed([`Let me think <trl-break duration="1.0" /> ah yes <trl-config speechSpeed='20' /><trl-stop-background-audio immediate='true' /><trl-anim immediate='true' type='core' id='Routine_07' />`]);
    expect(actions.map((a) => a.action)).toEqual([
      { kind: 'tag', tag: 'trl-break', attrs: { duration: '1.0' } },
      { kind: 'tag', tag: 'trl-config', attrs: { speechspeed: '20' } },
      { kind: 'tag', tag: 'trl-stop-background-audio', attrs: { immediate: 'true' } },
      { kind: 'anim', id: 'Routine_07', type: 'core', immediate: true },
    ]);
    for (const a of actions) expect(ZAvatarAction.safeParse(a.action).success).toBe(true);
  });

  it('a tag between two spaces leaves one, and one at the start leaves none, however the text is cut', () => {
    const answer = "<trl-mood id='happy' /> Hello <trl-anim id='nod' /> there.";
    for (let k = 0; k <= answer.length; k++) {
      const { text, actions } = streamed([answer.slice(0, k), answer.slice(k)]);
      expect(text, `split at ${k}`).toBe('Hello there.');
      expect(actions.map((a) => a.at)).toEqual([0, 'Hello '.length]);
    }
  });

  it('a quoted `>` stays inside its attribute', () => {
    expect(tagAction(`<trl-morph name="brow>up" value='0.3'/>`)).toEqual({ kind: 'morph', name: 'brow>up', value: 0.3 });
  });

  it('a hostile `<trl-` without end does not swallow the answer: the look-ahead is bounded', () => {
    const hostile = `<trl-anim id='${'x'.repeat(5000)}`;
    const parser = new AvatarTagParser();
    const out: TagPiece[] = [];
    // Streamed in small tokens, the held text never grows past the bound.
    for (let i = 0; i < hostile.length; i += 7) {
      out.push(...parser.push(hostile.slice(i, i + 7)));
      expect((parser as unknown as { held: string }).held.length).toBeLessThanOrEqual(MAX_TAG_CHARS + 7);
    }
    out.push(...parser.push(' and the rest of the answer.'), ...parser.end());
    expect(collect(out)).toEqual({ text: `${hostile} and the rest of the answer.`, actions: [] });
  });

  it('an unclosed tag at a line end or before another `<` is text, and the tag after it still counts', () => {
    expect(streamed(["<trl-anim id='nod'\nnext line <trl-gesture id='wave'/>!"])).toEqual({
      text: "<trl-anim id='nod'\nnext line !",
      actions: [{ at: "<trl-anim id='nod'\nnext line ".length, action: { kind: 'gesture', gesture: 'wave' } }],
    });
    expect(streamed(["<trl-mood id='sad' <trl-mood id='happy'/>ok"])).toEqual({ text: "<trl-mood id='sad' ok", actions: [{ at: 19, action: { kind: 'mood', mood: 'happy' } }] });
    expect(streamed(['unclosed at the end <trl-anim id="nod"'])).toEqual({ text: 'unclosed at the end <trl-anim id="nod"', actions: [] });
  });

  it('numbers: intensities 0–1 or percentages, durations in seconds within the limit', () => {
    expect(tagAction("<trl-mood id='sad' intensity='70' duration='600'/>")).toEqual({ kind: 'mood', mood: 'sad', intensity: 0.7, durationMs: 60_000 });
    expect(tagAction("<trl-mood id='sad' intensity='-1' duration='x'/>")).toEqual({ kind: 'mood', mood: 'sad' });
    expect(tagAction("<trl-mood id='happy' intensity='900'/>")).toEqual({ kind: 'mood', mood: 'happy', intensity: 1 });
  });
});
