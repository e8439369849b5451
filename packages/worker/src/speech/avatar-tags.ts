import {
  AvatarActionLimits,
  TrulienceTags,
  ZAvatarAction,
  isAvatarGesture,
  isAvatarMood,
  type TAvatarAction,
  type TTrulienceTag,
} from '@persona/contract';

/**
 * Takes Trulience's avatar tags (`<trl-anim id='nod' />`, `<trl-mood id='happy' />`, …) out of
 * the brain's streamed answer: what is left is the text that is spoken, shown and remembered, and
 * each tag becomes an avatar action at its place in that text (ADR 088).
 *
 * Streaming: a tag may arrive cut anywhere across deltas, so a `<` that may still begin one is
 * held until it can be told. What is held is bounded: a `<` that is not followed by `trl-` (or
 * `/trl-`), a candidate that meets a line end or another `<` before its `>`, or one longer than
 * MAX_TAG_CHARS is text after all and passes through unchanged — a broken tag never swallows the
 * rest of the answer. A closed `<trl-…>` tag is always taken out (a tag is never spoken), and
 * does something only when it is one of TrulienceTags with attributes that make sense.
 * Pure, no timers.
 */
export type TagPiece = { type: 'text'; text: string } | { type: 'action'; action: TAvatarAction };

/** The longest tag looked for; past this a `<trl-` without its `>` is text. */
export const MAX_TAG_CHARS = 320;

const PREFIX = 'trl-';

export class AvatarTagParser {
  private held = '';
  /** A tag was just taken out (the next text's leading spaces may be the tag's own). */
  private afterTag = false;
  /** The last character of the text given out ('' before any). */
  private lastChar = '';

  /** Adds streamed text; returns the text that is sure not to be part of a tag, and the tags completed. */
  push(delta: string): TagPiece[] {
    return this.scan(this.held + delta, false);
  }

  /** The answer ended: whatever is held (an unclosed tag) is text. */
  end(): TagPiece[] {
    return this.scan(this.held, true);
  }

  private scan(buf: string, final: boolean): TagPiece[] {
    this.held = '';
    const out: TagPiece[] = [];
    let text = '';
    let i = 0;
    while (i < buf.length) {
      const lt = buf.indexOf('<', i);
      if (lt < 0) {
        text += buf.slice(i);
        break;
      }
      text += buf.slice(i, lt);
      const found = readTag(buf, lt, final);
      if (found === 'wait') {
        this.held = buf.slice(lt);
        break;
      }
      if (found === null) {
        text += '<';
        i = lt + 1;
        continue;
      }
      this.emit(out, text);
      text = '';
      const action = tagAction(buf.slice(lt, found));
      if (action) out.push({ type: 'action', action });
      this.afterTag = true;
      i = found;
    }
    this.emit(out, text);
    return out;
  }

  /**
   * Gives out text. A tag taken out between two spaces would leave both ("a <trl-…/> b" → "a  b"),
   * and one at the start a leading space: after a tag, spaces that follow a space (or nothing) go.
   */
  private emit(out: TagPiece[], text: string) {
    if (this.afterTag && (this.lastChar === '' || /\s/.test(this.lastChar))) text = text.replace(/^[ \t]+/, '');
    if (!text) return;
    this.afterTag = false;
    this.lastChar = text.at(-1)!;
    out.push({ type: 'text', text });
  }
}

/** Takes every tag out of a whole text at once: its text and actions in order. */
export function parseAvatarTags(text: string): TagPiece[] {
  const parser = new AvatarTagParser();
  return merge([...parser.push(text), ...parser.end()]);
}

function merge(pieces: TagPiece[]): TagPiece[] {
  const out: TagPiece[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (p.type === 'text' && last?.type === 'text') last.text += p.text;
    else out.push(p);
  }
  return out;
}

/**
 * The tag starting at `buf[lt]` ('<'): the index after its `>`, null when it is not a trl tag,
 * 'wait' when the text so far cannot tell.
 */
function readTag(buf: string, lt: number, final: boolean): number | null | 'wait' {
  let k = lt + 1;
  if (k < buf.length && buf[k] === '/') k++;
  // "<", "</", "<t", "<trl" … could still become "<trl-".
  for (let p = 0; p < PREFIX.length; p++, k++) {
    if (k >= buf.length) return final ? null : 'wait';
    if (buf[k]!.toLowerCase() !== PREFIX[p]) return null;
  }
  let quote: string | null = null;
  for (; k < buf.length; k++) {
    if (k - lt >= MAX_TAG_CHARS) return null;
    const ch = buf[k]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\n') return null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '>') return k + 1;
    else if (ch === '<' || ch === '\n') return null;
  }
  return final ? null : 'wait';
}

const TAG_RE = /^<\s*(\/?)\s*(trl-[a-z0-9-]*)([\s\S]*?)\/?\s*>$/i;
const ATTR_RE = /([a-z_:][a-z0-9_:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`/]+)))?/gi;

/** A tag's name (lower case) and attributes (names lower case), or null when it does not read as a tag. */
export function readTagText(tag: string): { name: string; closing: boolean; attrs: Record<string, string> } | null {
  const m = TAG_RE.exec(tag);
  if (!m) return null;
  const attrs: Record<string, string> = {};
  let count = 0;
  const rest = m[3] ?? '';
  for (const a of rest.matchAll(ATTR_RE)) {
    if (count >= AvatarActionLimits.attrs) break;
    const key = a[1]!.toLowerCase().slice(0, AvatarActionLimits.attrName);
    if (Object.hasOwn(attrs, key)) continue;
    attrs[key] = (a[2] ?? a[3] ?? a[4] ?? 'true').slice(0, AvatarActionLimits.attrValue);
    count++;
  }
  return { name: m[2]!.toLowerCase(), closing: m[1] === '/', attrs };
}

const isTrulienceTag = (name: string): name is TTrulienceTag => (TrulienceTags as readonly string[]).includes(name);

/** A number attribute: 0–1 taken as is, 1–100 as a percentage; anything else is absent. */
function unitOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim().replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0) return undefined;
  const v = n <= 1 && !value.includes('%') ? n : n / 100;
  return v <= 1 ? v : 1;
}

/** A duration attribute in seconds (as `<trl-break duration="1.0" />`), as ms within the mood limit. */
function msOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim().replace(/s$/i, ''));
  if (!Number.isFinite(n) || n < 0) return undefined;
  return Math.min(AvatarActionLimits.moodMs, Math.round(n * 1000));
}

const first = (attrs: Record<string, string>, ...names: string[]) => {
  for (const n of names) if (attrs[n] !== undefined) return attrs[n];
  return undefined;
};

function moodOrGesture(id: string | undefined, attrs: Record<string, string>): TAvatarAction | null {
  const key = id?.trim().toLowerCase();
  const intensity = unitOf(first(attrs, 'intensity', 'value', 'weight'));
  const durationMs = msOf(first(attrs, 'duration'));
  if (isAvatarMood(key)) return { kind: 'mood', mood: key, ...(intensity !== undefined ? { intensity } : {}), ...(durationMs !== undefined ? { durationMs } : {}) };
  if (isAvatarGesture(key)) return { kind: 'gesture', gesture: key, ...(intensity !== undefined ? { intensity } : {}) };
  return null;
}

/** The action a whole tag asks for, or null (a closing tag, an unknown or unreadable one). */
export function tagAction(tag: string): TAvatarAction | null {
  const read = readTagText(tag);
  if (!read || read.closing || !isTrulienceTag(read.name)) return null;
  const { name, attrs } = read;
  let action: TAvatarAction | null;
  switch (name) {
    case 'trl-mood':
      action = moodOrGesture(first(attrs, 'id', 'name', 'mood', 'type'), attrs);
      if (action?.kind !== 'mood') action = null;
      break;
    case 'trl-gesture':
      action = moodOrGesture(first(attrs, 'id', 'name', 'gesture', 'type'), attrs);
      if (action?.kind !== 'gesture') action = null;
      break;
    case 'trl-anim': {
      const id = first(attrs, 'id', 'name');
      if (!id) return null;
      action = moodOrGesture(id, attrs);
      if (!action) {
        const type = attrs.type?.toLowerCase();
        action = {
          kind: 'anim',
          id,
          ...(type === 'core' || type === 'aux' ? { type } : {}),
          ...(attrs.immediate !== undefined ? { immediate: attrs.immediate.toLowerCase() === 'true' } : {}),
        };
      }
      break;
    }
    case 'trl-morph': {
      const target = first(attrs, 'name', 'id', 'target', 'morph');
      if (!target) return null;
      action = moodOrGesture(target, attrs);
      if (action?.kind === 'gesture') action = null;
      else if (!action) {
        const value = unitOf(first(attrs, 'value', 'weight', 'intensity'));
        const durationMs = msOf(first(attrs, 'duration'));
        action = { kind: 'morph', name: target, ...(value !== undefined ? { value } : {}), ...(durationMs !== undefined ? { durationMs } : {}) };
      }
      break;
    }
    default:
      action = { kind: 'tag', tag: name, attrs };
  }
  if (!action) return null;
  const checked = ZAvatarAction.safeParse(action);
  return checked.success ? checked.data : null;
}
