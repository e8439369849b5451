import { describe, expect, it } from 'vitest';
import { chunkText } from './chunker.js';
import { docxParagraphs, extractDocx, MAX_DOCUMENT_XML_BYTES } from './extract.js';
import { matchRobotsPattern, parseRobots, ROBOTS_LIMITS } from './robots.js';
import { makeDocx, makeDocxBody } from './sample-documents.js';
import { writeZip } from './zip.js';

/**
 * Issue 9, item 1: parsers of uploaded or fetched content must take time linear in their input.
 * Each hostile input here took seconds to minutes with the RegExps these parsers used before; the
 * bounds leave room for a loaded 2-core machine and are still far below the old times.
 */
const timed = <T>(fn: () => T): { value: T; ms: number } => {
  const t = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t };
};

describe('robots.txt patterns', () => {
  it('matches * and $ like RFC 9309', () => {
    const m = matchRobotsPattern;
    expect([m('/a', '/a/b'), m('/a$', '/a'), m('/a$', '/a/b'), m('/*.pdf$', '/x/y.pdf'), m('/*.pdf$', '/x/y.pdf?z'), m('/*.pdf', '/x/y.pdf?z')]).toEqual([true, true, false, true, false, true]);
    expect([m('/a*b*c', '/aXbYc/d'), m('/a*b*c', '/aXcYb'), m('*', '/'), m('/p*$', '/p'), m('/a*a$', '/aa'), m('/a*a$', '/a'), m('/ab*ab$', '/abab'), m('/ab*ab$', '/aba')]).toEqual([true, false, true, true, true, false, true, false]);
    expect([m('/fish*.php', '/fish.php'), m('/fish*.php', '/fishheads/catfish.php?parameters'), m('/fish*.php', '/Fish.PHP'), m('/*.php$', '/filename.php/'), m('/fish*', '/fishy')]).toEqual([true, true, false, false, true]);
  });

  it('answers a pathological rule at once (was 140 s for a 60-character path)', () => {
    const robots = parseRobots(`User-agent: *\nDisallow: /${'a*'.repeat(200)}b\nAllow: /${'*a'.repeat(200)}$\n`, 'PersonaStudioBot/1.0');
    const { value, ms } = timed(() => robots.isAllowed(new URL(`http://x.test/${'a'.repeat(ROBOTS_LIMITS.maxPathLength * 2)}`)));
    expect(value).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it('caps the number and length of rules and the length of the path matched', () => {
    const many = `User-agent: *\n${Array.from({ length: ROBOTS_LIMITS.maxRules + 500 }, (_, i) => `Disallow: /r${i}/`).join('\n')}\nDisallow: /${'x'.repeat(ROBOTS_LIMITS.maxPatternLength + 1)}\n`;
    const robots = parseRobots(many, 'PersonaStudioBot/1.0');
    const ok = (p: string) => robots.isAllowed(new URL(`http://x.test${p}`));
    expect([ok('/r0/'), ok(`/r${ROBOTS_LIMITS.maxRules - 1}/`), ok(`/r${ROBOTS_LIMITS.maxRules}/`), ok(`/${'x'.repeat(ROBOTS_LIMITS.maxPatternLength + 1)}`)]).toEqual([false, false, true, true]);
    const { ms } = timed(() => {
      for (let i = 0; i < 20; i++) ok(`/${'r'.repeat(100_000)}`);
    });
    expect(ms).toBeLessThan(1000);
  });
});

describe('DOCX paragraphs', () => {
  it('reads paragraphs, headings, tabs and breaks, entities, and ignores tab stops', () => {
    const body =
      '<w:p><w:pPr><w:pStyle w:val="Heading2"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Tides &amp; seals</w:t></w:r></w:p>' +
      '<w:p/><w:p w:rsidR="00"><w:r><w:t xml:space="preserve">a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c &#233; &#x41;</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>T</w:t></w:r></w:p>';
    expect(extractDocx(makeDocxBody(body))).toBe('## Tides & seals\n\na b\nc é A\n\n# T');
    expect(extractDocx(makeDocx(['# Heading', 'Para & more']))).toBe('# Heading\n\nPara & more');
  });

  it('reads <w:p> repeated 200,000 times in linear time (the lazy RegExp blocked the server for minutes)', () => {
    const xml = `<w:body>${'<w:p>'.repeat(200_000)}<w:r><w:t>end</w:t></w:r></w:body>`;
    const { value, ms } = timed(() => docxParagraphs(xml));
    expect(value).toEqual(['end']);
    expect(ms).toBeLessThan(2000);
    const unclosed = timed(() => docxParagraphs(`<w:p><w:t>${'<w:t>'.repeat(100_000)}${'x'.repeat(100_000)}`));
    expect(unclosed.ms).toBeLessThan(2000);
  });

  it('refuses a document.xml that declares more than the cap before unpacking it', () => {
    const doc = writeZip({ '[Content_Types].xml': '<Types/>', 'word/document.xml': Buffer.alloc(8, 'a') });
    const central = doc.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const lying = Buffer.from(doc);
    for (let p = central; p >= 0; p = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), p + 4)) {
      if (lying.toString('utf8', p + 46, p + 46 + 17) === 'word/document.xml') lying.writeUInt32LE(MAX_DOCUMENT_XML_BYTES + 1, p + 24);
    }
    expect(() => extractDocx(lying)).toThrow(/unpacks to more than 64 MB/);
  });
});

describe('chunker headings', () => {
  it('reads a heading line without backtracking over long runs of spaces', () => {
    const hostile = `# ${' '.repeat(200_000)}\nX\nY`;
    const { ms } = timed(() => chunkText(hostile));
    expect(ms).toBeLessThan(2000);
    expect(chunkText('# Guide\n\n## Tides\n\nWater.').map((c) => c.heading)).toEqual(['Guide › Tides']);
  });
});
