import type { TKnowledgeFileType } from '@persona/contract';
import { chunkText, type Chunk } from './chunker.js';
import { decodeText, extractFile, extractHtml, extractPdf, matchesFileType, pageLinks } from './extract.js';

/**
 * What the extraction threads do: turn untrusted content (an uploaded file, a fetched page, a
 * pasted text) into chunks, or a page into its links. Pure functions of their input, run by
 * extract-thread.ts inside a worker.
 */
export type ExtractJob =
  | { op: 'text'; text: string }
  | { op: 'file'; fileType: TKnowledgeFileType; data: Uint8Array }
  | { op: 'page'; kind: 'pdf' | 'text' | 'html'; data: Uint8Array; html?: string; url: string }
  | { op: 'links'; html: string; url: string };

export type ExtractResult = { chunks: Chunk[] } | { invalidFile: true } | { title: string; links: string[] };

export async function runExtractJob(job: ExtractJob): Promise<ExtractResult> {
  if (job.op === 'text') return { chunks: chunkText(job.text) };
  if (job.op === 'links') return pageLinks(job.html, job.url);
  const buf = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
  if (job.op === 'file') {
    if (!matchesFileType(buf, job.fileType)) return { invalidFile: true };
    return { chunks: chunkText(await extractFile(buf, job.fileType)) };
  }
  if (job.kind === 'pdf') return { chunks: chunkText(await extractPdf(buf)) };
  if (job.kind === 'text') return { chunks: chunkText(decodeText(buf)) };
  return { chunks: chunkText(extractHtml(job.html ?? '', job.url).text) };
}
