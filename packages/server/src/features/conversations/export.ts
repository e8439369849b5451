import { Readable } from 'node:stream';
import { ConversationCsvColumns, type TExportFormat } from '@persona/contract';
import type { TConversationExport } from './service.js';

/**
 * The export's file formats (ADR 094), written a conversation at a time from an async source:
 * JSON (`{status, conversations: [...], nextCursor}`) and CSV (one row per turn, RFC 4180 quoting,
 * spreadsheet formulas defused).
 */

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

/** The CSV rows of one conversation: one per turn (a conversation without turns still gets one row, its facts). */
export function csvRowsOf(c: TConversationExport): string {
  const facts = [c.id, c.avatarId, c.avatarName, c.startedAt, c.endedAt, c.endCode && c.outcome === 'error' ? `error:${c.endCode}` : c.outcome, c.channel, c.visitor];
  if (c.turnList.length === 0) return csvLine([...facts, null, null, null, null, null, null, null, null, null]);
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
