import { Readable } from 'node:stream';
import { ConversationCsvColumns, type TConversationTurn, type TExportFormat } from '@persona/contract';
import type { TConversationExport } from './service.js';

/**
 * The export's file formats (ADR 094), written a conversation at a time from an async source:
 * JSON (`{status, conversations: [...], nextCursor}`) and CSV (one row per turn with its detail
 * flattened, RFC 4180 quoting, spreadsheet formulas defused).
 */

/** The export route's OpenAPI description: what each format holds, the CSV's columns by name. */
export const EXPORT_DESCRIPTION = [
  'Conversations with their transcripts, newest first, streamed: one (`id`) or the list\u2019s filters, at most `limit`, `cursor` for the rest (JSON `nextCursor`).',
  'JSON: `{status, conversations: [summary + turnList], nextCursor}`; each turn may carry its `detail` (corrections, heard ms, functions, passages, provider errors).',
  `CSV (UTF-8 with BOM, CRLF, RFC 4180; cells starting with = + - @ TAB or CR get a leading '): one row per turn, columns ${ConversationCsvColumns.join(', ')}.`,
  'The detail columns: `heard_ms`/`full_chars` of an interrupted answer; `functions` as `name(arguments) \u2192 result` or `\u2192 FAILED: error`, `passages` (titles), `errors` (`provider:code (phase)`), `corrections` (earlier recognised versions), each list joined with " | ". Stored text is redacted per the avatar\u2019s privacy settings, the detail too.',
].join('\n\n');

/** A cell a spreadsheet would run as a formula (or that starts with a control character) gets a leading `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: text defused, then quoted when it holds a quote, comma or line break (quotes doubled). */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (cells: (string | number | boolean | null)[]) => `${cells.map(csvCell).join(',')}\r\n`;

/** Several values in one cell. */
const joined = (parts: readonly string[] | undefined) => (parts?.length ? parts.join(' | ') : null);

/**
 * A turn's detail (ADR 102) as the CSV's last columns: heard ms, whole length, functions, passage
 * titles, errors, corrections — each list in one cell. The detail is stored redacted (ADR 097), so
 * the cells are too; each cell is defused like any other (`csvCell`). A call without a result
 * reads `→ OK`, a failed one `→ FAILED` (with its error when there is one).
 */
export function detailCells(d: TConversationTurn['detail']): (string | number | null)[] {
  return [
    d?.heardMs ?? null,
    d?.fullChars ?? null,
    joined(d?.calls?.map((c) => `${c.name}(${c.arguments}) \u2192 ${c.ok ? (c.result ?? 'OK') : `FAILED${c.result ? `: ${c.result}` : ''}`}`)),
    joined(d?.passages?.map((p) => p.title)),
    joined(d?.errors?.map((e) => `${e.provider}:${e.code}${e.phase ? ` (${e.phase})` : ''}`)),
    joined(d?.interims),
  ];
}

/** The CSV rows of one conversation: one per turn (a conversation without turns still gets one row, its facts). */
export function csvRowsOf(c: TConversationExport): string {
  const facts = [c.id, c.avatarId, c.avatarName, c.startedAt, c.endedAt, c.endCode && c.outcome === 'error' ? `error:${c.endCode}` : c.outcome, c.channel, c.visitor];
  if (c.turnList.length === 0) return csvLine([...facts, ...Array.from({ length: ConversationCsvColumns.length - facts.length }, () => null)]);
  return c.turnList
    .map((t) =>
      csvLine([
        ...facts,
        t.at,
        t.role,
        t.text,
        t.interrupted,
        t.latency?.endOfUtteranceMs ?? null,
        t.latency?.sttMs ?? null,
        t.latency?.llmFirstTokenMs ?? null,
        t.latency?.ttsFirstByteMs ?? null,
        t.latency?.endToEndMs ?? null,
        ...detailCells(t.detail),
      ]),
    )
    .join('');
}

/** The file as a stream: each conversation written as the source yields it (backpressure: the source is pulled). */
export function exportStream(format: TExportFormat, rows: AsyncIterable<TConversationExport>, nextCursor: () => string | null): Readable {
  async function* text(): AsyncGenerator<string> {
    if (format === 'csv') {
      // The BOM tells spreadsheets the file is UTF-8.
      yield `\uFEFF${csvLine([...ConversationCsvColumns])}`;
      for await (const c of rows) yield csvRowsOf(c);
      return;
    }
    yield '{"status":"OK","conversations":[';
    let first = true;
    for await (const c of rows) {
      yield (first ? '' : ',') + JSON.stringify(c);
      first = false;
    }
    yield `],"nextCursor":${JSON.stringify(nextCursor())}}`;
  }
  return Readable.from(text(), { objectMode: false });
}

/** `conversations-<date>.<ext>` or `conversation-<id>.<ext>`: plain ASCII, nothing to escape. */
export function exportFileName(format: TExportFormat, id: string | undefined, now: Date): string {
  return id ? `conversation-${id}.${format}` : `conversations-${now.toISOString().slice(0, 10)}.${format}`;
}
