import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { createWatchdog, httpFailure, joinUrl, providerFailure, refuseWrongAnswer } from '../http.js';
import { readSse } from '../sse.js';

/**
 * Streaming Chat Completions against any OpenAI-compatible base URL (OpenAI, Groq, Gemini's
 * `…/v1beta/openai/`, Cerebras, DeepSeek, Fireworks, Perplexity, Telnyx, Together, xAI, a local
 * server…). `POST {baseUrl}/chat/completions` with `stream: true`; the answer is read as
 * server-sent events (`data: {chunk}` … `data: [DONE]`): text deltas are passed on as they
 * arrive, streamed `tool_calls` fragments are assembled per index. Every failure is a
 * ProviderError (with the HTTP status when there was one); the caller's abort passes through.
 * The wire format stays in this file.
 */
export const OPENAI_COMPATIBLE = 'openai-compatible';

export interface ChatToolCall {
  id: string;
  name: string;
  /** JSON text, as the model wrote it. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ChatTool {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  messages: readonly ChatMessage[];
  maxTokens?: number | null;
  tools?: readonly ChatTool[];
  /** 'none' keeps the tools visible but asks for an answer (the last round of a tool loop). */
  toolChoice?: 'auto' | 'none';
  temperature?: number;
}

export type ChatStreamEvent =
  | { type: 'text'; delta: string }
  /** The model wants these functions called (once, after its text, when the stream ended). */
  | { type: 'tool-calls'; calls: ChatToolCall[] }
  | { type: 'finish'; reason: string | null };

export interface ChatTimeouts {
  /** From the request to the first streamed chunk (headers included). */
  firstChunkMs: number;
  /** Longest silence between two chunks once the answer started. */
  idleMs: number;
}

/**
 * The first token: a model first reads the whole prompt (instructions, 40 history entries,
 * knowledge passages) and reasoning models think before they write, so several seconds are
 * normal and 10–15 s happen; beyond 20 s the visitor hears the apology instead.
 */
export const LLM_FIRST_TOKEN_MS = 20_000;
/**
 * Silence between two tokens once the answer streams: tokens come every few tens of ms, but a
 * provider under load pauses for seconds and a model may think again mid-answer (what was said
 * stays; the rest is the apology).
 */
export const LLM_IDLE_MS = 10_000;

export const DEFAULT_CHAT_TIMEOUTS: ChatTimeouts = { firstChunkMs: LLM_FIRST_TOKEN_MS, idleMs: LLM_IDLE_MS };

export interface OpenAiCompatibleClient {
  baseUrl: string;
  apiKey: string;
  fetch: GuardedFetch;
  timeouts?: Partial<ChatTimeouts>;
  /** Name in errors and logs (default 'openai-compatible'). */
  provider?: string;
}

/** Largest streamed answer accepted (bytes on the wire). */
const MAX_STREAM_BYTES = 8 * 1024 * 1024;

/** Accepts the full endpoint URL as a base too (people paste it). */
export function chatCompletionsUrl(baseUrl: string): string {
  return joinUrl(baseUrl.replace(/\/chat\/completions\/?$/, ''), 'chat/completions');
}

function wireBody(client: OpenAiCompatibleClient, req: ChatRequest): string {
  const body: Record<string, unknown> = {
    model: req.model,
    stream: true,
    messages: req.messages.map((m) => {
      if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      if (m.role === 'assistant' && m.toolCalls?.length) {
        return {
          role: 'assistant',
          content: m.content,
          tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        };
      }
      return { role: m.role, content: m.content ?? '' };
    }),
  };
  if (req.maxTokens) {
    // OpenAI's own API refuses max_tokens for its reasoning models; the others know max_tokens.
    const host = new URL(client.baseUrl).hostname;
    body[host === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens'] = req.maxTokens;
  }
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    body.tool_choice = req.toolChoice ?? 'auto';
  }
  return JSON.stringify(body);
}

interface WireToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/** Streams one completion. The generator's consumer may stop early: the request is then cancelled. */
export async function* streamChat(client: OpenAiCompatibleClient, req: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatStreamEvent> {
  const provider = client.provider ?? OPENAI_COMPATIBLE;
  const timeouts = { ...DEFAULT_CHAT_TIMEOUTS, ...client.timeouts };
  const dog = createWatchdog(signal);
  try {
    dog.arm(timeouts.firstChunkMs, 'the first token');
    const res = await client.fetch(chatCompletionsUrl(client.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: wireBody(client, req),
      signal: dog.signal,
      timeoutMs: timeouts.firstChunkMs,
      maxBytes: MAX_STREAM_BYTES,
    });
    if (!res.ok) throw await httpFailure(provider, res);
    if (!res.body) throw new ProviderError(provider, 'empty answer', res.status);
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('application/json')) {
      // Some servers ignore stream:true and answer one JSON document.
      yield* fromJsonAnswer(provider, (await res.json()) as unknown);
      return;
    }
    await refuseWrongAnswer(provider, res, 'stream');
    const calls: { id: string; name: string; arguments: string }[] = [];
    let finish: string | null = null;
    let done = false;
    let started = false;
    const events = readSse(res.body, {
      onBytes: () => {
        if (started) dog.arm(timeouts.idleMs, 'the next token');
      },
      drainOnReturnMs: 2_000,
    });
    for await (const ev of events) {
      if (ev.data === '[DONE]') {
        done = true;
        break;
      }
      const chunk = JSON.parse(ev.data) as Record<string, unknown>;
      if (chunk.error) throw new ProviderError(provider, `error in the stream: ${describeError(chunk.error)}`, res.status === 200 ? undefined : res.status);
      const choice = (chunk.choices as { delta?: { content?: unknown; tool_calls?: WireToolCallDelta[] }; finish_reason?: string | null }[] | undefined)?.[0];
      if (!choice) continue;
      if (!started) {
        started = true;
        dog.arm(timeouts.idleMs, 'the next token');
      }
      const content = choice.delta?.content;
      if (typeof content === 'string' && content.length > 0) yield { type: 'text', delta: content };
      for (const part of choice.delta?.tool_calls ?? []) {
        // Some servers omit the index (whole calls in one delta): a new id starts a new call.
        let index: number;
        if (typeof part.index === 'number') index = part.index;
        else if (calls.length === 0 || (part.id && part.id !== calls[calls.length - 1]?.id)) index = calls.length;
        else index = calls.length - 1;
        if (!Number.isInteger(index) || index < 0 || index > 64) throw new ProviderError(provider, 'malformed tool call in the stream');
        const call = (calls[index] ??= { id: '', name: '', arguments: '' });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    if (!done && !finish) throw new ProviderError(provider, 'the answer broke off before it ended');
    dog.disarm();
    const complete = calls.filter((c) => c && c.name);
    if (complete.length) yield { type: 'tool-calls', calls: complete.map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments || '{}' })) };
    yield { type: 'finish', reason: finish };
  } catch (err) {
    throw providerFailure(provider, err, signal, dog);
  } finally {
    dog.dispose();
  }
}

function* fromJsonAnswer(provider: string, json: unknown): Generator<ChatStreamEvent> {
  const o = json as { choices?: { message?: { content?: unknown; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason?: string }[]; error?: unknown };
  if (o?.error) throw new ProviderError(provider, describeError(o.error));
  const choice = o?.choices?.[0];
  if (!choice) throw new ProviderError(provider, 'an answer without choices');
  if (typeof choice.message?.content === 'string' && choice.message.content) yield { type: 'text', delta: choice.message.content };
  const calls = (choice.message?.tool_calls ?? []).filter((c) => c.function?.name);
  if (calls.length) yield { type: 'tool-calls', calls: calls.map((c, i) => ({ id: c.id || `call_${i}`, name: c.function!.name!, arguments: c.function!.arguments || '{}' })) };
  yield { type: 'finish', reason: choice.finish_reason ?? null };
}

function describeError(error: unknown): string {
  if (typeof error === 'string') return error.slice(0, 300);
  const e = error as { message?: unknown; code?: unknown };
  return String(e?.message ?? e?.code ?? 'unknown error').slice(0, 300);
}

/** A whole (short) completion as text: summaries. */
export async function completeChat(client: OpenAiCompatibleClient, req: ChatRequest, signal: AbortSignal): Promise<string> {
  let text = '';
  for await (const ev of streamChat(client, { ...req, tools: undefined }, signal)) if (ev.type === 'text') text += ev.delta;
  return text;
}
