import type { TKnowledgeFileType } from '@persona/contract';
import { analysePython, type PythonAnalysis } from '../../lib/python-syntax.js';
import { chunkText, type Chunk } from './chunker.js';
import { crawlCandidates, filterByRobots, type RobotsVerdicts } from './crawl-links.js';
import { decodeText, extractFile, extractHtml, extractPdf, matchesFileType, pageLinks } from './extract.js';

/**
 * What the extraction threads do: turn untrusted content (an uploaded file, a fetched page, a
 * pasted text) into chunks, a page into the links to crawl, check links against robots.txt, and
 * parse a python function. Pure functions of their input, run by
 * extract-thread.ts inside a worker.
 */
export type ExtractJob =
  | { op: 'text'; text: string }
  | { op: 'file'; fileType: TKnowledgeFileType; data: Uint8Array }
  | { op: 'page'; kind: 'pdf' | 'text' | 'html'; data: Uint8Array; html?: string; url: string }
  /** A crawled page: its title and the links a crawl of `site` may follow (crawl-links.ts). */
  | { op: 'links'; html: string; url: string; site: string }
  /** URLs checked against a robots.txt within a work budget (crawl-links.ts). */
  | { op: 'robots'; robots: string; userAgent: string; urls: string[]; budget: number }
  /** A python function's syntax and top-level functions (tree-sitter, functions/python-syntax.ts). */
  | { op: 'python'; code: string };

export type ExtractResult = { chunks: Chunk[] } | { invalidFile: true } | { title: string; links: string[] } | RobotsVerdicts | { python: PythonAnalysis };

export async function runExtractJob(job: ExtractJob): Promise<ExtractResult> {
  if (job.op === 'text') return { chunks: chunkText(job.text) };
  if (job.op === 'links') {
    const { title, links } = pageLinks(job.html, job.url);
    return { title, links: crawlCandidates(links, job.site) };
  }
  if (job.op === 'python') return { python: await analysePython(job.code) };
  if (job.op === 'robots') return filterByRobots(job.robots, job.userAgent, job.urls, job.budget);
  const buf = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
  if (job.op === 'file') {
    if (!matchesFileType(buf, job.fileType)) return { invalidFile: true };
    return { chunks: chunkText(await extractFile(buf, job.fileType)) };
  }
  if (job.kind === 'pdf') return { chunks: chunkText(await extractPdf(buf)) };
  if (job.kind === 'text') return { chunks: chunkText(decodeText(buf)) };
  return { chunks: chunkText(extractHtml(job.html ?? '', job.url).text) };
}
