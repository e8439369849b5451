import { useCallback, useState } from 'react';
import type { TInfoPanelItem } from '@persona/contract';

/**
 * Which help the info panel shows: the page's own help until a field is focused, then that field's.
 * `show(key)` is given to fields (onFocus / onClick); `reset()` goes back to the page's help.
 */
export function useInfoPanel<K extends string>(help: Record<K, TInfoPanelItem>, initial: NoInfer<K>) {
  const [key, setKey] = useState<K>(initial);
  const show = useCallback((next: K) => setKey(next), []);
  const reset = useCallback(() => setKey(initial), [initial]);
  return { item: help[key], activeKey: key, show, reset };
}
