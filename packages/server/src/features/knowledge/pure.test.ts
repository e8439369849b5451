import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chunkText } from './chunker.js';
import { decodeText, extractDocx, extractHtml, extractPdf, isDocx, matchesFileType } from './extract.js';
import { createKnowledgeTokens } from './jwt.js';
import { parseRobots } from './robots.js';
import { makeDocx, makePdf } from '../../test/sample-documents.js';
import { fuseRankings } from './service.js';
import { readZipDirectory, writeZip } from './zip.js';

describe('chunking', () => {
  it('starts a chunk at every heading, keeps the heading path, and packs paragraphs to the target size', () => {
    const para = (n: number) => `Sentence ${n} about harbours and tides. `.repeat(12).trim();
    const text = `# Guide\n\n## Tides\n\n${para(1)}\n\n${para(2)}\n\n${para(3)}\n\n## Seals\n\nGrey seals rest on the rocks.`;
    const chunks = chunkText(text);
    expect(chunks.map((c) => c.heading)).toEqual(['Guide › Tides', 'Guide › Tides', 'Guide › Seals']);
    expect(chunks.every((c) => c.text.length <= 1400)).toBe(true);
    expect(chunks[2]!.text).toBe('Grey seals rest on the rocks.');
  });

  it('overlaps consecutive chunks of a section with the last sentence', () => {
    const sentences = Array.from({ length: 60 }, (_, i) => `Fact number ${i} is here.`).join(' ');
    const chunks = chunkText(sentences);
    expect(chunks.length).toBeGreaterThan(1);
    const lastOfFirst = chunks[0]!.text.match(/Fact number \d+ is here\./g)!.pop()!;
    const firstOfSecond = chunks[1]!.text.match(/Fact number \d+ is here\./)![0];
    expect(chunks[0]!.text).toContain(firstOfSecond);
    expect(chunks[1]!.text).toContain(lastOfFirst);
    expect(chunks[1]!.text.length - chunks[1]!.text.indexOf(lastOfFirst)).toBeGreaterThan(lastOfFirst.length);
  });

  it('cuts a paragraph without sentence ends at spaces, and ignores empty input', () => {
    const long = 'word '.repeat(2000);
    expect(chunkText(long).every((c) => c.text.length <= 1400)).toBe(true);
    expect(chunkText('  \n\n  ')).toEqual([]);
  });
});

describe('robots.txt', () => {
  it('uses our group or *, longest match wins, Allow wins ties, * and $ patterns', () => {
    const robots = parseRobots('User-agent: other\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\n', 'PersonaStudioBot/1.0');
    const ok = (p: string) => robots.isAllowed(new URL(`http://x.test${p}`));
    expect([ok('/'), ok('/private/x'), ok('/private/open/page'), ok('/a/file.pdf'), ok('/a/file.pdf?x=1')]).toEqual([true, false, true, false, true]);
    expect(parseRobots('User-agent: PersonaStudioBot\nDisallow: /\n', 'PersonaStudioBot/1.0').isAllowed(new URL('http://x.test/a'))).toBe(false);
  });
});

describe('files', () => {
  it('bounds a ZIP by entry count and declared size before unpacking, and refuses a lying entry', () => {
    const many = writeZip(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, 'x'])));
    expect(() => readZipDirectory(many, { maxEntries: 20, maxTotalBytes: 1e6 })).toThrow(/too many entries/);
    const big = writeZip({ 'big.txt': Buffer.alloc(2_000_000, 'a') });
    expect(() => readZipDirectory(big, { maxEntries: 20, maxTotalBytes: 1_000_000 })).toThrow(/unpacks to more than/);
    // A bomb that declares 100 bytes for a 10 MB entry.
    const doc = writeZip({ '[Content_Types].xml': '<Types/>', 'word/document.xml': Buffer.alloc(10_000_000, 'a') });
    expect(readZipDirectory(doc, { maxEntries: 10, maxTotalBytes: 1e9 })).toHaveLength(2);
    const centralAt = doc.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), doc.indexOf(Buffer.from('word/document.xml')) + 20);
    const lying = Buffer.from(doc);
    let p = centralAt;
    while (p >= 0 && p < lying.length) {
      if (lying.readUInt32LE(p) === 0x02014b50 && lying.toString('utf8', p + 46, p + 46 + 17) === 'word/document.xml') lying.writeUInt32LE(100, p + 24);
      p = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), p + 4);
    }
    expect(() => extractDocx(lying)).toThrow(/does not unpack to its declared size/);
    expect(isDocx(makeDocx(['hello']))).toBe(true);
  });

  it('tells types by content', async () => {
    const pdf = makePdf(['# Title\nBody text.']);
    const docx = makeDocx(['# Heading', 'Para & more']);
    expect(matchesFileType(pdf, 'application/pdf')).toBe(true);
    expect(matchesFileType(docx, 'application/pdf')).toBe(false);
    expect(matchesFileType(docx, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe(true);
    expect(matchesFileType(writeZip({ 'a.txt': 'x' }), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe(false);
    expect(matchesFileType(Buffer.from('plain words\n'), 'text/plain')).toBe(true);
    expect(matchesFileType(pdf, 'text/plain')).toBe(false);
    expect(await extractPdf(pdf)).toBe('# Title\n\nBody text.');
    expect(extractDocx(docx)).toBe('# Heading\n\nPara & more');
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')]))).toBe('héllo');
  });

  it('keeps a page’s main text and drops navigation, scripts and footers', () => {
    const html = `<html><head><title>T</title><script>var NOISE=1</script></head><body><nav><a href="/">NAVNOISE</a></nav><main><h1>Main title</h1><p>${'Real content sentence. '.repeat(20)}</p><h2>Sub</h2><p>More real content.</p></main><footer>FOOTNOISE</footer></body></html>`;
    const { title, text } = extractHtml(html, 'http://x.test/');
    expect(title).toBe('T');
    expect(text).toContain('Real content sentence.');
    expect(text).toContain('## Sub');
    for (const noise of ['NOISE', 'NAVNOISE', 'FOOTNOISE']) expect(text).not.toContain(noise);
  });
});

describe('tokens and fusion', () => {
  it('issues HS256 tokens that expire', () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const tokens = createKnowledgeTokens({ key: Buffer.alloc(32, 1), ttlSeconds: 60, now: () => now });
    const { token } = tokens.issue(42, 7);
    expect(tokens.verify(token)).toEqual({ userId: 42, sessionId: 7 });
    now = new Date('2030-01-01T00:01:31Z');
    expect(tokens.verify(token)).toBeNull();
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: '1', aud: 'knowledge', iss: 'persona-studio', exp: 2e9 })).toString('base64url')}.${s}`;
    expect(tokens.verify(forged)).toBeNull();
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`;
    expect(tokens.verify(none)).toBeNull();
    // Correctly signed but naming no session (the tokens made before sessions were named): refused.
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ sub: '42', aud: 'knowledge', iss: 'persona-studio', iat: 1893456000, exp: 1893456060 })).toString('base64url');
    const sig = createHmac('sha256', Buffer.alloc(32, 1)).update(`${header}.${body}`).digest('base64url');
    now = new Date('2030-01-01T00:00:10Z');
    expect(tokens.verify(`${header}.${body}.${sig}`)).toBeNull();
  });

  it('fuses rankings by reciprocal rank', () => {
    const fused = fuseRankings([
      [{ chunkId: 1, score: 3 }, { chunkId: 2, score: 2 }],
      [{ chunkId: 2, score: 0.9 }, { chunkId: 3, score: 0.8 }],
    ]);
    expect(fused.map((f) => f.chunkId)).toEqual([2, 1, 3]);
    expect(fused[0]!.ranks).toEqual([2, 1]);
  });
});
