import { useQuery } from '@tanstack/react-query';
import { getConfigFile } from '../../api/get-config-file';
import { deepMerge, parentConfigOf, type TAvatarConfig } from '../../lib/avatar-config';
import { toFetchable } from '../../lib/hosting';

const MAX_DEPTH = 6;

/** Reads a ParentConfig chain and merges it, parents first (spec: "avatar config and its parent config chain"). */
async function resolveParents(url: string): Promise<TAvatarConfig> {
  const chain: TAvatarConfig[] = [];
  let next: string | undefined = url;
  const seen = new Set<string>();
  while (next && chain.length < MAX_DEPTH && !seen.has(next)) {
    seen.add(next);
    const doc = await getConfigFile(toFetchable(next));
    chain.unshift(doc);
    next = parentConfigOf(doc);
  }
  return chain.reduce<TAvatarConfig>((acc, doc) => deepMerge(acc, doc), {});
}

/** The avatar's config with what its parents supply (for showing current values). */
export function useEffectiveConfig(config: TAvatarConfig): TAvatarConfig {
  const parent = parentConfigOf(config);
  const parents = useQuery({
    queryKey: ['avatars', 'config-chain', parent],
    queryFn: () => resolveParents(parent!),
    enabled: Boolean(parent),
    staleTime: Infinity,
    retry: false,
  });
  const { ParentConfig: _p, ...own } = config;
  return deepMerge(parents.data ?? {}, own);
}
