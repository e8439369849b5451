import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { CodeBlock } from './code-block';

/**
 * The small Markdown subset the repository's customer documents use (docs/agent-api.md): headings,
 * paragraphs, `-` lists (continued by indented lines), pipe tables, fenced code, and inline code,
 * bold, italics and links. Rendered with the docs page's look; no HTML is ever passed through.
 */
export type Block =
  | { kind: 'heading'; level: number; text: string; id: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: string[][] }
  | { kind: 'code'; lang: string; code: string };

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export const slugOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const isBlank = (l: string | undefined) => l === undefined || l.trim() === '';
  const startsBlock = (l: string) => /^(#{1,6} |```|- |\|)/.test(l);
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = /^```(\w*)/.exec(line);
    const heading = /^(#{1,6}) (.+)$/.exec(line);
    if (fence) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      i++;
      blocks.push({ kind: 'code', lang: fence[1] ?? '', code: code.join('\n') });
    } else if (heading) {
      const text = heading[2]!.trim();
      blocks.push({ kind: 'heading', level: heading[1]!.length, text, id: slugOf(text) });
      i++;
    } else if (line.startsWith('|') && /^\|?[\s:|-]+$/.test(lines[i + 1] ?? '')) {
      const head = cellsOf(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cellsOf(lines[i]!));
      blocks.push({ kind: 'table', head, rows });
    } else if (line.startsWith('- ')) {
      const items: string[] = [];
      for (; i < lines.length; i++) {
        const l = lines[i]!;
        if (l.startsWith('- ')) items.push(l.slice(2).trim());
        else if (/^\s+\S/.test(l) && items.length) items[items.length - 1] += ` ${l.trim()}`;
        else break;
      }
      blocks.push({ kind: 'list', items });
    } else {
      const text: string[] = [];
      for (; i < lines.length && !isBlank(lines[i]) && (text.length === 0 || !startsBlock(lines[i]!)); i++) text.push(lines[i]!.trim());
      blocks.push({ kind: 'paragraph', text: text.join(' ') });
    }
  }
  return blocks;
}

/** Where a link of the document goes: an address (`internal`: a route of the portal), or null to show its text only. */
export type LinkResolver = (href: string) => { href: string; internal?: boolean } | null;

const INLINE = /`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;

function inline(text: string, resolve: LinkResolver, key = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = `${key}-${n++}`;
    if (m[1] !== undefined) out.push(<code key={k}>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong key={k}>{inline(m[2], resolve, k)}</strong>);
    else if (m[3] !== undefined) out.push(<em key={k}>{inline(m[3], resolve, k)}</em>);
    else {
      const target = resolve(m[5]!);
      const label = inline(m[4]!, resolve, k);
      if (!target) out.push(<span key={k}>{label}</span>);
      else if (target.internal)
        out.push(
          <Link key={k} component={RouterLink} to={target.href}>
            {label}
          </Link>,
        );
      else
        out.push(
          <Link key={k} href={target.href}>
            {label}
          </Link>,
        );
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const HEADING_VARIANT = { 1: 'h1', 2: 'h4', 3: 'h5' } as const;

export function Markdown({ source, resolveLink, codeLabel }: { source: string; resolveLink: LinkResolver; codeLabel: (lang: string, index: number) => string }) {
  const blocks = parseMarkdown(source);
  let codeIndex = 0;
  return (
    <Box sx={{ '& code': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '0.85em', overflowWrap: 'anywhere' }, '& [id]': { scrollMarginTop: 88 } }}>
      {blocks.map((b, i) => {
        switch (b.kind) {
          case 'heading': {
            const variant = HEADING_VARIANT[b.level as 1 | 2 | 3] ?? 'h6';
            return (
              <Typography key={i} id={b.id} variant={variant} component={`h${Math.min(6, b.level)}` as 'h1'} sx={{ mt: b.level === 1 ? 0 : 4, mb: 1.5 }}>
                {inline(b.text, resolveLink)}
              </Typography>
            );
          }
          case 'paragraph':
            return (
              <Typography key={i} sx={{ mb: 2, lineHeight: 1.7 }}>
                {inline(b.text, resolveLink)}
              </Typography>
            );
          case 'list':
            return (
              <Box key={i} component="ul" sx={{ mt: 0, mb: 2, pl: 3, display: 'grid', gap: 1, lineHeight: 1.7 }}>
                {b.items.map((item, j) => (
                  <li key={j}>{inline(item, resolveLink)}</li>
                ))}
              </Box>
            );
          case 'table':
            return (
              <Box key={i} sx={{ overflowX: 'auto', mb: 2 }} tabIndex={0} role="region" aria-label={`Table: ${b.head.join(', ')}`}>
                <Box component="table" sx={{ width: '100%', borderCollapse: 'collapse', fontSize: '0.9rem', '& th, & td': { textAlign: 'left', verticalAlign: 'top', p: 1, borderBottom: 1, borderColor: 'divider' } }}>
                  <thead>
                    <tr>
                      {b.head.map((h, j) => (
                        <th key={j}>{inline(h, resolveLink)}</th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {b.rows.map((row, j) => (
                      <tr key={j}>
                        {row.map((cell, k) => (
                          <td key={k}>{inline(cell, resolveLink)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </Box>
              </Box>
            );
          case 'code':
            return <CodeBlock key={i} code={b.code} label={codeLabel(b.lang, codeIndex++)} />;
        }
      })}
    </Box>
  );
}
