import { LiveTurnDetailLimits as L, type TLiveHistoryEntry, type TLivePassage, type TLiveToolCallDetail, type TLiveTurnDetail, type TLiveTurnError } from '@persona/contract';
import { ProviderError } from '../core/errors.js';

/**
 * A turn's detail for the transcript (ADR 102): the recogniser's corrections, how much of an
 * interrupted answer was heard, the functions called with their arguments and results, the
 * knowledge passages the answer was given, and the providers that failed. Every piece is clipped
 * to the contract's bounds here, so the portal's refusal of more is never reached.
 */

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}\u2026` : text);

/** Lower case, letters and digits only: "Hello, World" and "hello world" are the same words. */
const words = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * The interim versions of a spoken turn that the final text corrected: not a beginning of the final
 * (a recogniser still catching up is not a correction), each once, the last `L.interims`, oldest first.
 */
export function corrections(interims: readonly string[], final: string): string[] {
  const done = words(final);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const text of interims) {
    const w = words(text);
    if (!w || done.startsWith(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(clip(text.trim(), 2_000));
  }
  return out.slice(-L.interims);
}

/** A failure as the transcript shows it: the provider and a code, never the message (it may quote the visitor). */
export function turnError(err: unknown, phase: string, fallback: string): TLiveTurnError {
  const provider = err instanceof ProviderError ? err.provider : fallback;
  const status = err instanceof ProviderError ? err.status : undefined;
  const name = err instanceof Error ? err.name : '';
  const code = status !== undefined ? `http-${status}` : name === 'TimeoutError' ? 'timeout' : 'failed';
  return { provider: clip(provider || 'unknown', 64), code, phase: clip(phase || 'unknown', 32) };
}

/** What one turn gathers while it runs; `detail()` is absent when there is nothing to show. */
export class TurnDetail {
  private readonly calls: TLiveToolCallDetail[] = [];
  private passages: { title: string; snippet: string }[] = [];
  private readonly errors: TLiveTurnError[] = [];

  call(name: string, args: string | undefined, ok: boolean, result: string | undefined) {
    if (this.calls.length >= L.calls) return;
    this.calls.push({ name: clip(name, 200), arguments: clip(args ?? '', L.callChars), ok, result: result === undefined ? null : clip(result, L.callChars) });
  }

  usedPassages(passages: readonly TLivePassage[]) {
    this.passages = passages.slice(0, L.passages).map((p) => ({ title: clip(p.source.trim() || 'Untitled', L.titleChars), snippet: clip(p.text.replace(/\s+/g, ' ').trim(), L.snippetChars) }));
  }

  /** Passages found by a search the model asked for (realtime `search_knowledge`): added to those of the turn, each once. */
  addPassages(passages: readonly TLivePassage[]) {
    const seen = new Set(this.passages.map((p) => `${p.title}\n${p.snippet}`));
    for (const p of passages) {
      if (this.passages.length >= L.passages) break;
      const kept = { title: clip(p.source.trim() || 'Untitled', L.titleChars), snippet: clip(p.text.replace(/\s+/g, ' ').trim(), L.snippetChars) };
      const key = `${kept.title}\n${kept.snippet}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.passages.push(kept);
    }
  }

  error(e: TLiveTurnError) {
    if (this.errors.length < L.errors) this.errors.push(e);
  }

  detail(): TLiveTurnDetail | undefined {
    const d: TLiveTurnDetail = {};
    if (this.calls.length) d.calls = [...this.calls];
    if (this.passages.length) d.passages = [...this.passages];
    if (this.errors.length) d.errors = [...this.errors];
    return Object.keys(d).length ? d : undefined;
  }
}

/** An interrupted answer: how long its voice played and how long the whole answer was. */
export function markHeard(entry: TLiveHistoryEntry, heardMs: number, fullText: string) {
  entry.detail = { ...entry.detail, heardMs: Math.max(0, Math.min(3_600_000, Math.round(heardMs))), fullChars: Math.min(1_000_000, fullText.length) };
}

/** Adds provider failures to an entry's detail (at most `L.errors`). */
export function addErrors(entry: TLiveHistoryEntry, errors: readonly TLiveTurnError[]) {
  if (!errors.length) return;
  const all = [...(entry.detail?.errors ?? []), ...errors].slice(0, L.errors);
  entry.detail = { ...entry.detail, errors: all };
}

/** Puts a turn's gathered detail on its entry; errors are added to those it has (at most `L.errors`). */
export function mergeDetail(entry: TLiveHistoryEntry, gathered: TLiveTurnDetail | undefined) {
  if (!gathered) return;
  const errors = entry.detail?.errors && gathered.errors ? { errors: [...entry.detail.errors, ...gathered.errors].slice(0, L.errors) } : {};
  entry.detail = { ...entry.detail, ...gathered, ...errors };
}

/** The history as the page and an own agent get it: without the transcript's detail. */
export function withoutDetail(entries: readonly TLiveHistoryEntry[]): TLiveHistoryEntry[] {
  return entries.map((e) => {
    if (!e.detail) return e;
    const { detail: _detail, ...rest } = e;
    return rest;
  });
}
