import type { TKnowledgeItem } from '@persona/contract';
import { listKnowledge } from './items';

/**
 * Polls the collection until none of these items is processing any more (their ingestion runs in
 * the background), reporting each read. Gives up after `timeoutMs`.
 */
export async function waitForItems(
  collectionId: number,
  ids: number[],
  onUpdate: (items: TKnowledgeItem[]) => void,
  { intervalMs = 800, timeoutMs = 5 * 60_000, signal }: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<TKnowledgeItem[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = (await listKnowledge(collectionId)).filter((i) => ids.includes(i.id));
    onUpdate(items);
    if (items.every((i) => i.status !== 'processing')) return items;
    if (Date.now() > deadline || signal?.aborted) return items;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
