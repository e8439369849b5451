/**
 * Splits document text (paragraphs separated by blank lines, `#` heading lines) into chunks for
 * retrieval: a new chunk at every heading, paragraphs packed up to a target size, long paragraphs
 * cut at sentence ends, and the last sentence(s) of a chunk repeated at the start of the next one
 * in the same section (overlap), so an answer that straddles a boundary is still found whole.
 */
export interface Chunk {
  /** The heading path above the chunk ("Chapter 1 › The storm"), or null. */
  heading: string | null;
  text: string;
}

export interface ChunkOptions {
  targetChars: number;
  maxChars: number;
  overlapChars: number;
  minChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { targetChars: 900, maxChars: 1400, overlapChars: 180, minChars: 200 };

const SENTENCE = /[^.!?…\n]+(?:[.!?…]+["'”’)\]]*|\n|$)\s*/g;

export function splitSentences(text: string): string[] {
  const out = (text.match(SENTENCE) ?? [text]).map((s) => s.trim()).filter(Boolean);
  return out.length > 0 ? out : [text];
}

/** Cuts a piece longer than max at sentence ends, and a sentence longer than max at spaces. */
function pieces(paragraph: string, max: number): string[] {
  if (paragraph.length <= max) return [paragraph];
  const out: string[] = [];
  for (const sentence of splitSentences(paragraph)) {
    if (sentence.length <= max) {
      out.push(sentence);
      continue;
    }
    let rest = sentence;
    while (rest.length > max) {
      const cut = rest.lastIndexOf(' ', max);
      const at = cut > max / 2 ? cut : max;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}

function tail(text: string, maxChars: number): string {
  const sentences = splitSentences(text);
  let out = '';
  for (let i = sentences.length - 1; i >= 0; i--) {
    const next = out ? `${sentences[i]} ${out}` : sentences[i]!;
    if (next.length > maxChars) break;
    out = next;
  }
  return out;
}

/**
 * A `# Heading` line: 1-6 `#`, whitespace, text, on one line. Scanned by hand: the RegExp it
 * replaces (`^(#{1,6})\s+(.+)$`) backtracked quadratically over long runs of spaces.
 */
function headingOf(block: string): { level: number; text: string } | null {
  if (block.includes('\n')) return null;
  let level = 0;
  while (level < block.length && block[level] === '#') level++;
  if (level < 1 || level > 6) return null;
  const rest = block.slice(level);
  const text = rest.trim();
  if (!text || rest.length === rest.trimStart().length) return null;
  return { level, text };
}

export function chunkText(input: string, options: Partial<ChunkOptions> = {}): Chunk[] {
  const opts = { ...DEFAULT_CHUNKING, ...options };
  const blocks = input
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n|\f/)
    .map((b) => b.trim())
    .filter(Boolean);
  const headings: string[] = [];
  const chunks: Chunk[] = [];
  let parts: string[] = [];
  let size = 0;
  let overlap = '';
  const heading = () => (headings.filter(Boolean).join(' › ') || null);

  const flush = (keepOverlap: boolean) => {
    if (parts.length === 0) return;
    const text = parts.join('\n\n');
    const last = chunks[chunks.length - 1];
    const h = heading();
    // A small remainder joins the previous chunk of the same section when it fits.
    if (text.length < opts.minChars && last && last.heading === h && last.text.length + text.length + 2 <= opts.maxChars && !overlap) {
      last.text = `${last.text}\n\n${text}`;
    } else {
      chunks.push({ heading: h, text });
    }
    overlap = keepOverlap && opts.overlapChars > 0 ? tail(text, opts.overlapChars) : '';
    parts = [];
    size = 0;
  };

  for (const block of blocks) {
    const title = headingOf(block);
    if (title) {
      flush(false);
      overlap = '';
      headings.length = title.level - 1;
      headings[title.level - 1] = title.text;
      continue;
    }
    for (const piece of pieces(block.replace(/[ \t]+/g, ' '), opts.maxChars - opts.overlapChars)) {
      if (size > 0 && size + piece.length + 2 > opts.targetChars) flush(true);
      if (parts.length === 0 && overlap && !piece.startsWith(overlap)) {
        parts.push(overlap);
        size = overlap.length;
        overlap = '';
      }
      parts.push(piece);
      size += piece.length + 2;
    }
  }
  flush(false);
  // Drop chunks that are only a repeated overlap.
  return chunks.filter((c, i) => i === 0 || c.text.trim() !== chunks[i - 1]!.text.trim());
}

/** What is embedded and shown: the heading path on its own line, then the text. */
export const chunkForEmbedding = (c: Chunk) => (c.heading ? `${c.heading}\n${c.text}` : c.text);
