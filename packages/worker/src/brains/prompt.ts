import { AvatarGestures, AvatarMoods, type TLiveHistoryEntry, type TLivePassage } from '@persona/contract';
import type { ChatMessage } from '../providers/llm/openai-compatible.js';
import type { BrainDeps } from './types.js';

/**
 * What the LLM and assistant brains tell the model, in one place: the system prompt (the
 * avatar's instructions, its memory of this visitor, how to use knowledge passages, how to show
 * a mood or gesture), the
 * conversation so far within a budget, and the visitor's message with the passages retrieved for
 * it. Passages travel with the user's message, not in the system prompt, so the start of the
 * prompt stays the same from turn to turn (providers cache that prefix).
 */
const PASSAGE_CHARS = 1_500;
const PASSAGES_TOTAL_CHARS = 6_000;
const HISTORY_ENTRIES = 40;
const HISTORY_CHARS = 24_000;

export const KNOWLEDGE_RULE =
  'Passages from a knowledge base may come with the visitor\'s message. When they are relevant, answer from them and name the source you used, for example "According to <source>, …". Never invent a source. When they do not answer the question, say so briefly or answer from what you know.';

/**
 * How the model can move the avatar's face (ADR 088): Trulience's tag syntax, taken out of what is
 * spoken and shown. Last in the system prompt, so the owner's instructions come first and can
 * say otherwise ("never use tags").
 */
export const EXPRESSION_RULE = `You are shown as an animated avatar. Unless your instructions above say otherwise, you may mark a mood or a gesture where a person would show one, with a tag that is not spoken: <trl-mood id="happy" /> (moods: ${AvatarMoods.join(', ')}) or <trl-anim id="nod" /> (gestures: ${AvatarGestures.join(', ')}). Put it just before the words it goes with; use them sparingly, and never explain them.`;

export function memoryBlock(memory: string | null): string | null {
  const text = memory?.trim();
  return text ? `What you remember about this visitor from earlier conversations:\n${text}` : null;
}

export function systemPrompt(parts: { instructions: string; memory: string | null; hasKnowledge: boolean }): string {
  return [parts.instructions.trim(), memoryBlock(parts.memory), parts.hasKnowledge ? KNOWLEDGE_RULE : null, EXPRESSION_RULE].filter(Boolean).join('\n\n');
}

/** The visitor's message, preceded by the passages found for it (numbered, each with its source). */
export function userMessage(text: string, passages: readonly TLivePassage[]): string {
  if (passages.length === 0) return text;
  let budget = PASSAGES_TOTAL_CHARS;
  const blocks: string[] = [];
  for (const p of passages) {
    if (budget <= 0) break;
    const body = p.text.trim().slice(0, Math.min(PASSAGE_CHARS, budget));
    budget -= body.length;
    blocks.push(`[${blocks.length + 1}] Source: ${p.source.trim() || 'knowledge base'}\n${body}`);
  }
  return `Passages from the knowledge base:\n\n${blocks.join('\n\n')}\n\nThe visitor's message:\n${text}`;
}

/** The most recent turns that fit the budget, oldest first. */
export function historyMessages(history: readonly TLiveHistoryEntry[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let chars = 0;
  for (let i = history.length - 1; i >= 0 && out.length < HISTORY_ENTRIES; i--) {
    const entry = history[i]!;
    chars += entry.text.length;
    if (chars > HISTORY_CHARS) break;
    if (!entry.text.trim()) continue;
    out.push({ role: entry.role, content: entry.text });
  }
  return out.reverse();
}

/** The passages for one turn; a failing search costs the turn its passages, not its answer. */
export async function retrievePassages(deps: BrainDeps, text: string, k: number, signal: AbortSignal): Promise<TLivePassage[]> {
  if (!deps.config.avatar.hasKnowledge || !text.trim()) return [];
  try {
    return (await deps.knowledge(text, signal)).slice(0, k);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    deps.log.warn('knowledge search failed; answering without passages', { avatarId: deps.config.avatar.id, error: err instanceof Error ? err.message : String(err) });
    return [];
  }
}

const SUMMARY_TRANSCRIPT_CHARS = 12_000;
export const SUMMARY_MAX_CHARS = 4_000;

/**
 * The session's summary (ADR 099), asked of the avatar's model once, at the session's end. With
 * avatar memory on, it is the memory's note about this visitor (merged with the earlier one);
 * otherwise a summary of this conversation alone.
 */
export function summaryMessages(history: readonly TLiveHistoryEntry[], memory: string | null, kind: 'memory' | 'session' = 'memory'): ChatMessage[] | null {
  if (!history.some((h) => h.role === 'user' && h.text.trim())) return null;
  const lines: string[] = [];
  let chars = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]!;
    const line = `${h.role === 'user' ? 'Visitor' : 'Avatar'}: ${h.text.trim()}`;
    chars += line.length;
    if (chars > SUMMARY_TRANSCRIPT_CHARS) break;
    lines.unshift(line);
  }
  if (kind === 'session') {
    return [
      {
        role: 'system',
        content:
          'Summarise a conversation between a visitor and a conversational avatar for the avatar\'s owner. Write at most 80 words, in the third person: what the visitor asked for or said, what the avatar answered or did, and anything left open. Only what was said. No preamble.',
      },
      { role: 'user', content: `Conversation:\n${lines.join('\n')}` },
    ];
  }
  const earlier = memory?.trim();
  return [
    {
      role: 'system',
      content:
        'You keep the memory of a conversational avatar about one visitor. Write at most 80 words, in the third person, with what is worth remembering next time: what the visitor said about themselves (name, preferences, situation), what they asked for, and anything left open. Merge it with the earlier memory when there is one. Only facts the visitor stated. No preamble.',
    },
    { role: 'user', content: `${earlier ? `Earlier memory:\n${earlier}\n\n` : ''}Conversation:\n${lines.join('\n')}` },
  ];
}

export function cleanSummary(text: string): string | null {
  const out = text.trim().slice(0, SUMMARY_MAX_CHARS);
  return out || null;
}
