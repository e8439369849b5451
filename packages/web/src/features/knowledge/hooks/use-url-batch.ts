import { useCallback, useRef, useState } from 'react';
import type { TCreateKnowledge, TKnowledgeItem } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { createKnowledgeBatch, updateKnowledge } from '../api/items';
import { waitForItems } from '../api/wait-for-items';
import { multiProgress } from './use-creeping-progress';

export interface BatchRow {
  key: string;
  url: string;
  request: TCreateKnowledge;
  item?: TKnowledgeItem;
  error?: string;
}

/**
 * A batch of URL (or crawled) items: created in one call with per-item results, then followed
 * until each is ready or failed; failed ones can be retried (processed again, or created again when
 * their creation itself failed).
 */
export function useUrlBatch(collectionId: number, onSettled: () => void) {
  const [rows, setRows] = useState<BatchRow[]>([]);
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rowsRef = useRef<BatchRow[]>([]);
  const update = (next: BatchRow[]) => {
    rowsRef.current = next;
    setRows(next);
  };

  const follow = useCallback(
    async (current: BatchRow[]) => {
      const ids = current.map((r) => r.item?.id).filter((id): id is number => id !== undefined);
      if (ids.length > 0) {
        await waitForItems(collectionId, ids, (items) => {
          const byId = new Map(items.map((i) => [i.id, i]));
          update(rowsRef.current.map((r) => (r.item && byId.has(r.item.id) ? { ...r, item: byId.get(r.item.id) } : r)));
        });
      }
      onSettled();
    },
    [collectionId, onSettled],
  );

  const create = async (requests: BatchRow[]): Promise<BatchRow[]> => {
    const results = await createKnowledgeBatch(requests.map((r) => r.request));
    return requests.map((r, i) => {
      const result = results.find((x) => x.index === i);
      return result?.status === 'OK' && result.data ? { ...r, item: result.data, error: undefined } : { ...r, item: undefined, error: result?.errors?.join(' ') ?? 'Processing failed' };
    });
  };

  const submit = async (requests: TCreateKnowledge[], urlOf: (r: TCreateKnowledge) => string) => {
    setBusy(true);
    setError(null);
    try {
      const initial = requests.map((request, i) => ({ key: `${i}-${urlOf(request)}`, url: urlOf(request), request }));
      update(initial.map((r) => ({ ...r, item: { id: -1, status: 'processing', status_reason: null, chunk_count: 0 } as TKnowledgeItem })));
      const created = await create(initial);
      update(created);
      await follow(created);
    } catch (err) {
      update([]);
      setError(errorMessages(err).join(' '));
    } finally {
      setBusy(false);
    }
  };

  const retryFailed = async () => {
    setBusy(true);
    setError(null);
    try {
      const current = rowsRef.current;
      const toRecreate = current.filter((r) => !r.item);
      const toReprocess = current.filter((r) => r.item?.status === 'failed');
      const reprocessed = await Promise.all(toReprocess.map((r) => updateKnowledge({ id: r.item!.id, changes: { reprocess: true } })));
      const recreated = toRecreate.length > 0 ? await create(toRecreate) : [];
      const next = current.map((r) => {
        const again = reprocessed.find((i) => i.id === r.item?.id);
        if (again) return { ...r, item: again };
        return recreated.find((x) => x.key === r.key) ?? r;
      });
      update(next);
      await follow(next);
    } catch (err) {
      setError(errorMessages(err).join(' '));
    } finally {
      setBusy(false);
    }
  };

  const ready = rows.filter((r) => r.item?.status === 'ready').length;
  const failed = rows.filter((r) => !r.item || r.item.status === 'failed').length;
  const progress = multiProgress(rows.length, ready, failed);
  const reset = () => {
    update([]);
    setError(null);
  };
  return { rows, progress, isBusy, error, submit, retryFailed, reset };
}
