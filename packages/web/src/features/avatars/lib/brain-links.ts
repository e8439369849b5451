import { NlpEngine, type TAvatar } from '@persona/contract';

/**
 * Knowledge Base and Functions sub-tabs (spec section 2): what may be linked and when.
 * Knowledge Base: only the product's realtime engine or the LLM engine. Functions: the same
 * engines and the avatar's Realtime setting on.
 */
export const LINKING_ENGINES: readonly number[] = [NlpEngine.TrulienceRealtime, NlpEngine.LargeLanguageModel];

export const isKnowledgeEnabled = (engine: number) => LINKING_ENGINES.includes(engine);
export const isFunctionsEnabled = (engine: number, isRealtime: boolean) => LINKING_ENGINES.includes(engine) && isRealtime;

export const LinkMessages = {
  knowledgeDisabled:
    'Knowledge Base collections can be linked only when the Avatar Engine is Large Language Model or Persona Studio Realtime (Foundations).',
  functionsDisabledEngine:
    'Functions can be linked only when the Avatar Engine is Large Language Model or Persona Studio Realtime (Foundations) and Realtime is on.',
  functionsDisabledRealtime: 'Functions need the avatar’s Realtime setting on (Advanced tab; an administrator sets it).',
  pending: 'Pending — saved with the avatar',
} as const;

/** The form's link values: `customData.collection_ids` and `functions`. */
export interface LinkValues {
  collection_ids: number[];
  functions: number[];
}

const ids = (v: unknown): number[] => (Array.isArray(v) ? [...new Set(v.filter((x): x is number => Number.isInteger(x) && x > 0))] : []);

export function linkValuesOf(agent: Partial<TAvatar>): LinkValues {
  return { collection_ids: ids((agent.customData as { collection_ids?: unknown } | undefined)?.collection_ids), functions: ids(agent.functions) };
}

export function applyLinkValues(payload: Record<string, unknown>, values: LinkValues): Record<string, unknown> {
  const customData = { ...((payload.customData as Record<string, unknown> | undefined) ?? {}), collection_ids: [...values.collection_ids] };
  return { ...payload, customData, functions: [...values.functions] };
}
