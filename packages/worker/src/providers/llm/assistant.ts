import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { createWatchdog, httpFailure, joinUrl, providerFailure, refuseWrongAnswer } from '../http.js';
import { readSse } from '../sse.js';
import { DEFAULT_CHAT_TIMEOUTS, type ChatTimeouts, type ChatToolCall } from './openai-compatible.js';

/**
 * The Assistants API v2 (`OpenAI-Beta: assistants=v2`), the only API that runs a stored assistant
 * by its id (`asst_…`) — CustomChatGPTAssistant. The Responses API cannot run an assistant id, and
 * OpenAI itself shut the Assistants API down on 26 August 2026 (its dashboard prompts, the
 * migration target, shut down on 30 November 2026): this client serves servers that still speak
 * it, and says plainly why api.openai.com refuses. See docs/decisions/021-brains-provider-clients.md.
 * - `GET /assistants/{id}`: the assistant's model and tools;
 * - `POST /threads/runs` (new thread with its messages) or `POST /threads/{thread}/runs` (with
 *   `additional_messages`), `stream: true`: run events as SSE (`thread.message.delta`,
 *   `thread.run.requires_action`, `thread.run.completed`/`failed`/…, `done`);
 * - `POST /threads/{thread}/runs/{run}/submit_tool_outputs` (streamed) after function calls;
 * - `POST …/cancel` when the visitor interrupts; `DELETE /threads/{thread}` at the end.
 */
export const OPENAI_ASSISTANTS = 'openai-assistants';

/**
 * OpenAI shut its Assistants API down on 26 August 2026: on api.openai.com every call now fails.
 * Say so, rather than only "HTTP 404", so the avatar's owner knows what to change.
 */
async function assistantsFailure(client: AssistantsClient, res: Response): Promise<ProviderError> {
  const err = await httpFailure(OPENAI_ASSISTANTS, res);
  if ((res.status === 404 || res.status === 410) && new URL(client.baseUrl).hostname === 'api.openai.com') {
    return new ProviderError(OPENAI_ASSISTANTS, `${err.message} — OpenAI shut down the Assistants API on 26 August 2026, so assistants cannot run there any more: give this avatar the Large Language Model engine with the assistant's instructions`, err.status);
  }
  return err;
}

export interface AssistantsClient {
  baseUrl: string;
  apiKey: string;
  fetch: GuardedFetch;
  timeouts?: Partial<ChatTimeouts>;
}

export interface AssistantInfo {
  id: string;
  model: string | null;
  /** The assistant's own tools, as stored (file_search, code_interpreter, functions). */
  tools: Record<string, unknown>[];
}

export type RunEvent =
  | { type: 'run'; threadId: string; runId: string }
  | { type: 'text'; delta: string }
  /** The run waits for these outputs (submitToolOutputs). */
  | { type: 'tool-calls'; threadId: string; runId: string; calls: ChatToolCall[] }
  /** completed, or incomplete (e.g. max tokens reached): both end the answer normally. */
  | { type: 'done'; status: string };

export interface RunRequest {
  assistantId: string;
  /** Continue this thread; otherwise a new thread is created with `threadMessages`. */
  threadId?: string;
  threadMessages?: { role: 'user' | 'assistant'; content: string }[];
  /** Added to an existing thread before the run. */
  additionalMessages?: { role: 'user' | 'assistant'; content: string }[];
  additionalInstructions?: string;
  /** Replaces the assistant's tools for this run (send its own ones too). */
  tools?: Record<string, unknown>[];
  maxCompletionTokens?: number | null;
}

const MAX_STREAM_BYTES = 8 * 1024 * 1024;

function headers(client: AssistantsClient, json: boolean): Record<string, string> {
  return {
    authorization: `Bearer ${client.apiKey}`,
    'openai-beta': 'assistants=v2',
    accept: json ? 'application/json' : 'text/event-stream',
    ...(json ? {} : { 'content-type': 'application/json' }),
  };
}

export async function getAssistant(client: AssistantsClient, assistantId: string, signal: AbortSignal): Promise<AssistantInfo> {
  const dog = createWatchdog(signal);
  try {
    const ms = client.timeouts?.firstChunkMs ?? DEFAULT_CHAT_TIMEOUTS.firstChunkMs;
    dog.arm(ms, 'the assistant');
    const res = await client.fetch(joinUrl(client.baseUrl, `assistants/${encodeURIComponent(assistantId)}`), { headers: headers(client, true), signal: dog.signal, timeoutMs: ms, maxBytes: 1024 * 1024 });
    if (!res.ok) throw await assistantsFailure(client, res);
    const body = (await res.json()) as { id?: unknown; model?: unknown; tools?: unknown };
    return { id: String(body.id ?? assistantId), model: typeof body.model === 'string' ? body.model : null, tools: Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [] };
  } catch (err) {
    throw providerFailure(OPENAI_ASSISTANTS, err, signal, dog);
  } finally {
    dog.dispose();
  }
}

/** Starts a run and streams its events until it completes or waits for tool outputs. */
export function streamRun(client: AssistantsClient, req: RunRequest, signal: AbortSignal): AsyncGenerator<RunEvent> {
  const body: Record<string, unknown> = { assistant_id: req.assistantId, stream: true };
  if (req.additionalInstructions) body.additional_instructions = req.additionalInstructions;
  if (req.tools) body.tools = req.tools;
  if (req.maxCompletionTokens) body.max_completion_tokens = req.maxCompletionTokens;
  let path: string;
  if (req.threadId) {
    path = `threads/${encodeURIComponent(req.threadId)}/runs`;
    if (req.additionalMessages?.length) body.additional_messages = req.additionalMessages;
  } else {
    path = 'threads/runs';
    body.thread = { messages: req.threadMessages ?? [] };
  }
  return runStream(client, path, body, signal, req.threadId ?? null);
}

export function submitToolOutputs(client: AssistantsClient, threadId: string, runId: string, outputs: { id: string; output: string }[], signal: AbortSignal): AsyncGenerator<RunEvent> {
  const path = `threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/submit_tool_outputs`;
  return runStream(client, path, { stream: true, tool_outputs: outputs.map((o) => ({ tool_call_id: o.id, output: o.output })) }, signal, threadId);
}

async function* runStream(client: AssistantsClient, path: string, body: Record<string, unknown>, signal: AbortSignal, knownThread: string | null): AsyncGenerator<RunEvent> {
  const timeouts = { ...DEFAULT_CHAT_TIMEOUTS, ...client.timeouts };
  const dog = createWatchdog(signal);
  let threadId = knownThread;
  let runId: string | null = null;
  try {
    dog.arm(timeouts.firstChunkMs, 'the first token');
    const res = await client.fetch(joinUrl(client.baseUrl, path), {
      method: 'POST',
      headers: headers(client, false),
      body: JSON.stringify(body),
      signal: dog.signal,
      timeoutMs: timeouts.firstChunkMs,
      maxBytes: MAX_STREAM_BYTES,
    });
    if (!res.ok) throw await assistantsFailure(client, res);
    if (!res.body) throw new ProviderError(OPENAI_ASSISTANTS, 'empty answer', res.status);
    await refuseWrongAnswer(OPENAI_ASSISTANTS, res, 'stream');
    let started = false;
    let ended = false;
    const events = readSse(res.body, {
      onBytes: () => {
        if (started) dog.arm(timeouts.idleMs, 'the next token');
      },
      drainOnReturnMs: 2_000,
    });
    for await (const ev of events) {
      if (ev.event === 'done' || ev.data === '[DONE]') break;
      const data = JSON.parse(ev.data) as Record<string, unknown>;
      switch (ev.event) {
        case 'thread.created':
          threadId = String(data.id);
          break;
        case 'thread.run.created':
          runId = String(data.id);
          threadId = String(data.thread_id ?? threadId);
          yield { type: 'run', threadId, runId };
          break;
        case 'thread.message.delta': {
          if (!started) {
            started = true;
            dog.arm(timeouts.idleMs, 'the next token');
          }
          const parts = ((data.delta as { content?: { type?: string; text?: { value?: unknown } }[] } | undefined)?.content ?? []) as { type?: string; text?: { value?: unknown } }[];
          for (const part of parts) if (part.type === 'text' && typeof part.text?.value === 'string' && part.text.value) yield { type: 'text', delta: part.text.value };
          break;
        }
        case 'thread.run.requires_action': {
          const calls = ((data.required_action as { submit_tool_outputs?: { tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] } } | undefined)?.submit_tool_outputs?.tool_calls ?? []).map((c) => ({
            id: String(c.id ?? ''),
            name: String(c.function?.name ?? ''),
            arguments: c.function?.arguments || '{}',
          }));
          ended = true;
          yield { type: 'tool-calls', threadId: String(data.thread_id ?? threadId), runId: String(data.id ?? runId), calls };
          break;
        }
        case 'thread.run.completed':
        case 'thread.run.incomplete':
          ended = true;
          yield { type: 'done', status: String(data.status ?? ev.event.slice('thread.run.'.length)) };
          break;
        case 'thread.run.failed':
        case 'thread.run.cancelled':
        case 'thread.run.expired': {
          const last = data.last_error as { code?: string; message?: string } | null | undefined;
          throw new ProviderError(OPENAI_ASSISTANTS, `the run ${ev.event.slice('thread.run.'.length)}${last?.message ? `: ${last.message}` : ''}`);
        }
        case 'error':
          throw new ProviderError(OPENAI_ASSISTANTS, `error in the stream: ${String((data as { message?: unknown }).message ?? (data.error as { message?: unknown } | undefined)?.message ?? 'unknown')}`);
        default:
          break;
      }
    }
    if (!ended) throw new ProviderError(OPENAI_ASSISTANTS, 'the run stream broke off before the run ended');
  } catch (err) {
    throw providerFailure(OPENAI_ASSISTANTS, err, signal, dog);
  } finally {
    dog.dispose();
  }
}

/** Best effort, bounded: a run the visitor interrupted, or a thread the session no longer needs. */
export async function cancelRun(client: AssistantsClient, threadId: string, runId: string): Promise<void> {
  await bestEffort(client, 'POST', `threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/cancel`);
}

export async function deleteThread(client: AssistantsClient, threadId: string): Promise<void> {
  await bestEffort(client, 'DELETE', `threads/${encodeURIComponent(threadId)}`);
}

async function bestEffort(client: AssistantsClient, method: string, path: string): Promise<void> {
  try {
    const res = await client.fetch(joinUrl(client.baseUrl, path), { method, headers: headers(client, true), signal: AbortSignal.timeout(5_000), timeoutMs: 5_000, maxBytes: 256 * 1024 });
    await res.body?.cancel();
  } catch {
    // The run or thread expires on its own.
  }
}
