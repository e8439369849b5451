import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { TKnowledgeFileType } from '@persona/contract';
import { readZipDirectory, readZipEntry, ZipError } from './zip.js';

/**
 * Text extraction. Every extractor answers "document text": paragraphs separated by blank lines,
 * headings as `# Heading` lines (the chunker splits along both).
 */
export class ExtractError extends Error {
  override readonly name = 'ExtractError';
}

export const DOCX_LIMITS = { maxEntries: 2000, maxTotalBytes: 200 * 1024 * 1024 } as const;
const MAX_TEXT_CHARS = 5_000_000;
const MAX_PDF_PAGES = 3000;

/** The little of the DOM used here (the server has no DOM types). */
interface El {
  nodeType: number;
  tagName: string;
  textContent: string | null;
  childNodes: ArrayLike<El>;
  getAttribute(name: string): string | null;
  remove(): void;
}
interface Doc {
  body: El | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
}
const parse = (html: string) => parseHTML(html) as unknown as { document: Doc };

const clean = (s: string) => s.replace(/[\u00a0\t ]+/g, ' ').replace(/ *\n */g, '\n').trim();

// ── HTML ─────────────────────────────────────────────────────────────────────

const BLOCKS = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'LI', 'UL', 'OL', 'BLOCKQUOTE', 'PRE', 'TABLE', 'TR', 'DL', 'DT', 'DD', 'FIGURE', 'FIGCAPTION', 'HEADER', 'FOOTER', 'ADDRESS', 'BODY']);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'CANVAS', 'BUTTON', 'SELECT', 'INPUT', 'TEXTAREA']);
const BOILERPLATE = 'nav, header, footer, aside, form, script, style, noscript, template, svg, iframe, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true], .cookie, #cookie-banner';

/** Walks an element into paragraphs, with h1-h6 as `#` lines and cells separated by tabs. */
function blocksOf(root: El): string {
  const out: string[] = [];
  let line = '';
  const flush = () => {
    const t = clean(line);
    if (t) out.push(t);
    line = '';
  };
  const walk = (node: El) => {
    if (node.nodeType === 3) {
      line += (node.textContent ?? '').replace(/\s+/g, ' ');
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.tagName.toUpperCase();
    if (SKIP.has(tag)) return;
    if (/^H[1-6]$/.test(tag)) {
      flush();
      const text = clean((el.textContent ?? '').replace(/\s+/g, ' '));
      if (text) out.push(`${'#'.repeat(Number(tag[1]))} ${text}`);
      return;
    }
    if (tag === 'BR') {
      line += '\n';
      return;
    }
    const block = BLOCKS.has(tag);
    if (block) flush();
    for (const child of Array.from(el.childNodes)) walk(child);
    if (tag === 'TD' || tag === 'TH') line += '\t';
    if (block) flush();
  };
  walk(root);
  flush();
  return out.join('\n\n');
}

export interface HtmlPage {
  title: string;
  text: string;
}

/** The main text of a web page: Readability's article, else the body without boilerplate. */
export function extractHtml(html: string, url: string): HtmlPage {
  const { document } = parse(html);
  const title = pageTitle(document);
  let text = '';
  try {
    const article = new Readability(document as never, { charThreshold: 200, keepClasses: false }).parse();
    if (article?.content) {
      const { document: articleDoc } = parse(`<!doctype html><html><body>${article.content}</body></html>`);
      text = articleDoc.body ? blocksOf(articleDoc.body) : '';
      const heading = clean(article.title ?? '');
      if (text && heading && !text.startsWith('#')) text = `# ${heading}\n\n${text}`;
    }
  } catch {
    // fall back below
  }
  if (clean(text).length < 80) {
    const { document: fresh } = parse(html);
    for (const el of Array.from(fresh.querySelectorAll(BOILERPLATE))) el.remove();
    const main = fresh.querySelector('main, article, [role=main]') ?? fresh.body;
    text = main ? blocksOf(main) : '';
  }
  void url;
  return { title, text: text.slice(0, MAX_TEXT_CHARS) };
}

export function pageTitle(document: Doc): string {
  const og = document.querySelector('meta[property="og:title"]')?.getAttribute('content');
  const title = document.querySelector('title')?.textContent ?? og ?? document.querySelector('h1')?.textContent ?? '';
  return clean(title.replace(/\s+/g, ' ')).slice(0, 300);
}

/** Title and same-site links of a page (for crawling); hashes dropped, duplicates removed. */
export function pageLinks(html: string, baseUrl: string): { title: string; links: string[] } {
  const { document } = parse(html);
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  let base: URL;
  try {
    base = new URL(baseHref ?? baseUrl, baseUrl);
  } catch {
    base = new URL(baseUrl);
  }
  const links = new Set<string>();
  for (const a of Array.from(document.querySelectorAll('a[href]'))) {
    const href = a.getAttribute('href') ?? '';
    if (!href || href.startsWith('#') || /^(mailto|tel|javascript|data):/i.test(href)) continue;
    if ((a.getAttribute('rel') ?? '').split(/\s+/).includes('nofollow')) continue;
    try {
      const u = new URL(href, base);
      u.hash = '';
      links.add(u.toString());
    } catch {
      // not a URL
    }
  }
  return { title: pageTitle(document), links: [...links] };
}

// ── Plain text ───────────────────────────────────────────────────────────────

/** Decodes a text file: UTF-8 (or UTF-16 with a BOM); binary content is refused. */
export function decodeText(buf: Buffer): string {
  let text: string;
  if (buf[0] === 0xff && buf[1] === 0xfe) text = new TextDecoder('utf-16le').decode(buf.subarray(2));
  else if (buf[0] === 0xfe && buf[1] === 0xff) text = new TextDecoder('utf-16be').decode(buf.subarray(2));
  else {
    if (looksBinary(buf)) throw new ExtractError('the file is not plain text');
    text = new TextDecoder('utf-8').decode(buf);
  }
  return text.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n').slice(0, MAX_TEXT_CHARS);
}

/** True when the first bytes hold NULs or mostly control characters (what text editors check). */
export function looksBinary(head: Uint8Array): boolean {
  const n = Math.min(head.length, 8192);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) control++;
  }
  return n > 0 && control / n > 0.1;
}

// ── PDF ──────────────────────────────────────────────────────────────────────

interface PdfTextItem {
  str: string;
  hasEOL: boolean;
  transform: number[];
  height: number;
}

/** The text of a PDF, page by page; larger lines become headings, gaps become paragraph breaks. */
export async function extractPdf(buf: Buffer): Promise<string> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = getDocument({ data: new Uint8Array(buf), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0, stopAtErrors: false });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    throw new ExtractError(`the PDF could not be read (${(err as Error).message})`);
  }
  try {
    if (doc.numPages > MAX_PDF_PAGES) throw new ExtractError(`the PDF has more than ${MAX_PDF_PAGES} pages`);
    const lines: { text: string; size: number; gap: number }[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let current = '';
      let size = 0;
      let lastY: number | null = null;
      let lineY: number | null = null;
      const push = (y: number | null) => {
        const text = clean(current);
        if (text) lines.push({ text, size, gap: lastY !== null && y !== null ? Math.abs(lastY - y) : 0 });
        if (text) lastY = y;
        current = '';
        size = 0;
      };
      for (const raw of content.items as PdfTextItem[]) {
        if (typeof raw.str !== 'string') continue;
        const y = raw.transform[5] ?? 0;
        if (lineY !== null && Math.abs(y - lineY) > 1 && current) push(lineY);
        if (!current) lineY = y;
        current += raw.str;
        size = Math.max(size, raw.height || Math.abs(raw.transform[3] ?? 0));
        if (raw.hasEOL) push(lineY);
      }
      push(lineY);
      lines.push({ text: '\f', size: 0, gap: 0 });
      page.cleanup();
      if (lines.reduce((s, l) => s + l.text.length, 0) > MAX_TEXT_CHARS) break;
    }
    return pdfLinesToText(lines);
  } finally {
    await doc.destroy();
  }
}

function pdfLinesToText(lines: { text: string; size: number; gap: number }[]): string {
  // The body size: the font size that carries the most characters.
  const bySize = new Map<number, number>();
  for (const l of lines) if (l.text !== '\f') bySize.set(Math.round(l.size * 2) / 2, (bySize.get(Math.round(l.size * 2) / 2) ?? 0) + l.text.length);
  const body = [...bySize.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const gaps = lines.filter((l) => l.gap > 0).map((l) => l.gap).sort((a, b) => a - b);
  const lineGap = gaps[Math.floor(gaps.length / 2)] ?? 0;
  const out: string[] = [];
  let para = '';
  const flush = () => {
    if (para.trim()) out.push(para.trim());
    para = '';
  };
  for (const line of lines) {
    if (line.text === '\f') continue;
    const isHeading = body > 0 && line.size >= body * 1.2 && line.text.length <= 120;
    if (isHeading) {
      flush();
      out.push(`${line.size >= body * 1.6 ? '#' : '##'} ${line.text}`);
      continue;
    }
    if (lineGap > 0 && line.gap > lineGap * 1.5) flush();
    // Join hyphenated line ends.
    para = para.endsWith('-') ? `${para.slice(0, -1)}${line.text}` : para ? `${para} ${line.text}` : line.text;
  }
  flush();
  return out.join('\n\n').slice(0, MAX_TEXT_CHARS);
}

// ── DOCX ─────────────────────────────────────────────────────────────────────

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return XML_ENTITIES[e] ?? m;
  });

/** True when a ZIP holds a Word document (checked before any entry is unpacked). */
export function isDocx(buf: Buffer): boolean {
  try {
    const names = new Set(readZipDirectory(buf, DOCX_LIMITS).map((e) => e.name));
    return names.has('[Content_Types].xml') && names.has('word/document.xml');
  } catch {
    return false;
  }
}

/** word/document.xml larger than this is refused before it is unpacked (a 20 MB .docx of text unpacks to far less). */
export const MAX_DOCUMENT_XML_BYTES = 64 * 1024 * 1024;

/** The value of attribute `name` in a start tag's text, scanned without a RegExp. */
function attributeOf(tag: string, name: string): string | null {
  const at = tag.indexOf(` ${name}=`);
  if (at < 0) return null;
  const quote = tag[at + name.length + 2];
  if (quote !== '"' && quote !== "'") return null;
  const start = at + name.length + 3;
  const end = tag.indexOf(quote, start);
  return end < 0 ? null : tag.slice(start, end);
}

/**
 * The paragraphs of a WordprocessingML body, by one left-to-right pass over the tags (each `<`
 * looked at once): `<w:p>` opens a paragraph, `<w:pStyle w:val>` gives its style, text inside
 * `<w:t>` is kept, `<w:tab/>`, `<w:br/>`, `<w:cr/>` become whitespace, `</w:p>` closes it. Linear
 * in the size of the XML: a lazy `[\s\S]*?` RegExp is quadratic on `<w:p>` repeated (a 650-byte
 * upload would hold the server for 1.7 s).
 */
export function docxParagraphs(xml: string): string[] {
  const out: string[] = [];
  let inParagraph = false;
  let inText = false;
  let style = '';
  let text = '';
  const close = () => {
    if (inParagraph) {
      const body = clean(text);
      if (body) {
        const level = headingLevel(style);
        out.push(level ? `${'#'.repeat(level)} ${body}` : body);
      }
    }
    inParagraph = false;
    inText = false;
    style = '';
    text = '';
  };
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const stop = lt < 0 ? xml.length : lt;
    if (inText && stop > i) text += decodeXml(xml.slice(i, stop));
    if (lt < 0) break;
    const gt = xml.indexOf('>', lt + 1);
    if (gt < 0) break;
    const tag = xml.slice(lt + 1, gt);
    i = gt + 1;
    const selfClosing = tag.endsWith('/');
    let nameEnd = 0;
    while (nameEnd < tag.length && tag[nameEnd] !== ' ' && tag[nameEnd] !== '/' && tag[nameEnd] !== '\t' && tag[nameEnd] !== '\n' && tag[nameEnd] !== '\r') nameEnd++;
    if (tag[0] === '/') {
      const name = tag.slice(1).trim();
      if (name === 'w:p') close();
      else if (name === 'w:t') inText = false;
      continue;
    }
    const name = tag.slice(0, nameEnd);
    if (name === 'w:p') {
      close();
      inParagraph = !selfClosing;
    } else if (!inParagraph) {
      continue;
    } else if (name === 'w:t') {
      inText = !selfClosing;
    } else if (name === 'w:pStyle') {
      style = attributeOf(tag, 'w:val') ?? '';
    } else if (name === 'w:tab' && tag.length <= 7) {
      // `<w:tab/>` in a run; `<w:tab w:val=… w:pos=…/>` in w:tabs is a tab stop, not text.
      text += '\t';
    } else if (name === 'w:br' || name === 'w:cr') {
      text += '\n';
    }
    if (text.length > MAX_TEXT_CHARS) break;
  }
  close();
  return out;
}

function headingLevel(style: string): number | null {
  const lower = style.toLowerCase();
  if (lower === 'title') return 1;
  if (!lower.startsWith('heading')) return null;
  const digit = lower.slice(7).trimStart()[0];
  return digit && digit >= '0' && digit <= '9' ? Math.min(6, Number(digit)) : null;
}

/** The paragraphs of word/document.xml; Heading/Title styles become `#` lines. */
export function extractDocx(buf: Buffer): string {
  let xml: string;
  try {
    const entries = readZipDirectory(buf, DOCX_LIMITS);
    const doc = entries.find((e) => e.name === 'word/document.xml');
    if (!doc || !entries.some((e) => e.name === '[Content_Types].xml')) throw new ExtractError('the file is not a Word document');
    if (doc.size > MAX_DOCUMENT_XML_BYTES) throw new ExtractError(`its text (word/document.xml) unpacks to more than ${MAX_DOCUMENT_XML_BYTES / 1024 / 1024} MB`);
    xml = readZipEntry(buf, doc).toString('utf8');
  } catch (err) {
    if (err instanceof ZipError) throw new ExtractError(`the Word document could not be read: ${err.message}`);
    throw err;
  }
  let total = 0;
  const kept: string[] = [];
  for (const p of docxParagraphs(xml)) {
    kept.push(p);
    total += p.length + 2;
    if (total > MAX_TEXT_CHARS) break;
  }
  return kept.join('\n\n').slice(0, MAX_TEXT_CHARS);
}

// ── Files ────────────────────────────────────────────────────────────────────

/** Whether the bytes really are the declared type (content, never the name). */
export function matchesFileType(buf: Buffer, type: TKnowledgeFileType): boolean {
  if (type === 'application/pdf') return buf.subarray(0, 5).toString('latin1') === '%PDF-';
  if (type === 'text/plain') return !isKnownBinary(buf) && !looksBinary(buf);
  return buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 3 && buf[3] === 4 && isDocx(buf);
}

function isKnownBinary(buf: Buffer): boolean {
  const head = buf.subarray(0, 8).toString('latin1');
  return head.startsWith('%PDF-') || head.startsWith('PK\u0003\u0004') || head.startsWith('\u0089PNG') || head.startsWith('GIF8') || (buf[0] === 0xff && buf[1] === 0xd8);
}

export async function extractFile(buf: Buffer, type: TKnowledgeFileType): Promise<string> {
  if (type === 'application/pdf') return extractPdf(buf);
  if (type === 'text/plain') return decodeText(buf);
  return extractDocx(buf);
}
