import { writeZip } from '../features/knowledge/zip.js';

/**
 * Real PDF and DOCX files made from text, for tests and benchmarks (no binary fixtures): a PDF
 * with one Helvetica text object per page (lines starting with '# ' are set larger, as headings),
 * and a minimal WordprocessingML package ('# ' lines get the Heading1 style).
 */
export function makePdf(pages: string[]): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const escape = (s: string) => s.replace(/[()\\]/g, (m) => `\\${m}`).replace(/[^\x20-\x7e]/g, '?');
  const kids: number[] = [];
  for (const page of pages) {
    let y = 740;
    const ops: string[] = ['BT'];
    for (const line of page.split('\n')) {
      const heading = line.startsWith('# ');
      const size = heading ? 18 : 11;
      y -= heading ? 28 : line.trim() === '' ? 8 : 15;
      if (line.trim() === '') continue;
      ops.push(`/F1 ${size} Tf 1 0 0 1 60 ${y} Tm (${escape(heading ? line.slice(2) : line)}) Tj`);
    }
    ops.push('ET');
    const stream = ops.join('\n');
    add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    const contentId = objects.length;
    add(`<< /Type /Page /Parent PAGES_ID 0 R /MediaBox [0 0 612 792] /Contents ${contentId} 0 R /Resources << /Font << /F1 1 0 R >> >> >>`);
    kids.push(objects.length);
  }
  add(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`);
  const pagesId = objects.length;
  add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`);
  const catalogId = objects.length;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body.replace('PAGES_ID', String(pagesId))}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalogId} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function makeDocx(paragraphs: string[]): Buffer {
  return makeDocxBody(
    paragraphs
      .map((p) =>
        p.startsWith('# ')
          ? `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>${xmlEscape(p.slice(2))}</w:t></w:r></w:p>`
          : `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`,
      )
      .join(''),
  );
}

/**
 * A .docx whose word/document.xml body is the given XML, as is (hostile documents in tests). A
 * huge body is better given as a Buffer: kept outside the JS heap, it leaves no tens of MB of
 * strings behind for a collection to meet during a later measurement.
 */
export function makeDocxBody(body: string | Buffer): Buffer {
  const open = '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const close = '</w:body></w:document>';
  return writeZip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': typeof body === 'string' ? open + body + close : Buffer.concat([Buffer.from(open), body, Buffer.from(close)]),
  });
}
