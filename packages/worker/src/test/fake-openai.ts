import type http from 'node:http';
import { listen, readBody, sendJson, sleep } from '../../../net/src/test/http-fake.js';

/**
 * A local fake of OpenAI's HTTP API, as far as the brains use it, speaking the real wire format:
 * - `POST /v1/chat/completions` with `stream: true`: SSE `data: {chat.completion.chunk}` lines
 *   (`choices[0].delta.content`, streamed `tool_calls` fragments), a last chunk with
 *   `finish_reason`, then `data: [DONE]`; without `stream`, one JSON completion;
 * - the Assistants API v2 (`OpenAI-Beta: assistants=v2`): `GET /v1/assistants/{id}`,
 *   `POST /v1/threads/runs`, `POST /v1/threads/{thread}/runs`,
 *   `POST /v1/threads/{thread}/runs/{run}/submit_tool_outputs` (streamed run events),
 *   `POST …/cancel`, `DELETE /v1/threads/{thread}`;
 * - Bearer auth: a wrong key is a 401 with OpenAI's error body.
 * The "model" is a script: by default `simulateModel` (echo, knowledge, tool calls); tests can
 * script any answer, delays, a 500, a stall or a dropped connection per request.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | null;
  at: number;
  /** Which TCP connection carried it (1, 2, …): kept-alive connections repeat. */
  connection: number;
}

export interface FakeAnswer {
  /** Streamed word by word (unless `chunks`). */
  text?: string;
  chunks?: string[];
  toolCalls?: { name: string; arguments: string }[];
  /** Delay before the first content chunk (headers go out at once). */
  firstTokenDelayMs?: number;
  /** Delay between chunks. */
  chunkDelayMs?: number;
  /** Answer this status with an OpenAI error body instead. */
  status?: number;
  /** Destroy the connection after this many content chunks. */
  dropAfterChunks?: number;
  /** Stop writing (never end) after this many content chunks. */
  stallAfterChunks?: number;
  /** Delay before the response headers. */
  headersDelayMs?: number;
  /** Delay between `data: [DONE]` and the end of the response (separate TCP packets). */
  endDelayMs?: number;
}

export interface SimpleMessage {
  role: string;
  content: string;
}

const WORD = /\S+\s*/g;

/**
 * A deterministic stand-in for a model: after tool results it reports them; when the visitor asks
 * it to "call <function>" (with an optional JSON object) it calls that function; with knowledge
 * passages it answers from the first and names its source; otherwise it echoes.
 */
export function simulateModel(messages: readonly SimpleMessage[], toolNames: readonly string[]): FakeAnswer {
  const last = messages[messages.length - 1];
  if (!last) return { text: 'Hello.' };
  if (last.role === 'tool') {
    const results: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messages[i]!.content);
    return { text: `The function returned ${results.join(' and ')}.` };
  }
  const user = last.content;
  const visitor = user.includes("The visitor's message:\n") ? user.slice(user.lastIndexOf("The visitor's message:\n") + 23) : user;
  const call = /\bcall (\w+)/i.exec(visitor);
  if (call && toolNames.includes(call[1]!)) {
    const json = /\{.*\}/s.exec(visitor)?.[0] ?? '{}';
    return { toolCalls: [{ name: call[1]!, arguments: json }] };
  }
  const passage = /\[1\] Source: (.+)\n([\s\S]*?)(?:\n\n\[\d+\] Source:|\n\nThe visitor's message:)/.exec(user);
  if (passage) {
    const sentence = passage[2]!.trim().split(/(?<=[.!?])\s/)[0];
    return { text: `According to ${passage[1]!.trim()}, ${sentence}` };
  }
  return { text: `You said: ${visitor.trim()}` };
}

export interface FakeOpenAiOptions {
  apiKey?: string;
  /** The answer to one chat completion (default: simulateModel). */
  answer?: (body: Record<string, unknown>, request: RecordedRequest) => FakeAnswer;
  /** Defaults merged into every answer (e.g. the bench's 200 ms first token). */
  defaults?: Partial<FakeAnswer>;
  assistants?: { id: string; model: string; instructions?: string; tools?: Record<string, unknown>[] }[];
  /** The answer of an assistant run (default: simulateModel over the thread). */
  runAnswer?: (messages: SimpleMessage[], toolNames: string[]) => FakeAnswer;
  /** Assistant runs end with status "failed" and this message. */
  failRunsWith?: string;
}

export interface FakeOpenAi {
  /** Base URL, …/v1 */
  url: string;
  origin: string;
  requests: RecordedRequest[];
  /** Chat completion requests' bodies, in order. */
  chatBodies(): Record<string, unknown>[];
  threads: Map<string, { messages: SimpleMessage[]; activeRun: string | null }>;
  options: FakeOpenAiOptions;
  close(): Promise<void>;
}

interface Run {
  id: string;
  threadId: string;
  assistantId: string;
  instructions: string;
  toolNames: string[];
  status: string;
  /** Tool calls awaiting outputs, with the messages they saw. */
  pending: { id: string; name: string }[];
  toolMessages: SimpleMessage[];
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const apiKey = options.apiKey ?? 'test-key';
  const requests: RecordedRequest[] = [];
  const threads = new Map<string, { messages: SimpleMessage[]; activeRun: string | null }>();
  const runs = new Map<string, Run>();
  const assistants = new Map((options.assistants ?? [{ id: 'asst_test', model: 'gpt-fake', instructions: 'You are a test assistant.', tools: [] }]).map((a) => [a.id, a]));
  let n = 0;
  const connections = new WeakMap<object, number>();
  let connectionCount = 0;
  const id = (prefix: string) => `${prefix}_${(++n).toString(36).padStart(6, '0')}`;

  const answerFor = (body: Record<string, unknown>, rec: RecordedRequest): FakeAnswer => {
    const messages = ((body.messages as { role: string; content: unknown }[]) ?? []).map((m) => ({ role: m.role, content: contentText(m.content) }));
    const tools = ((body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);
    const base = options.answer ? options.answer(body, rec) : simulateModel(messages, body.tool_choice === 'none' ? [] : tools);
    return { ...options.defaults, ...base };
  };

  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = req.method === 'GET' || req.method === 'DELETE' ? '' : await readBody(req);
    let body: Record<string, unknown> | null = null;
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return sendJson(res, 400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' } });
      }
    }
    if (!connections.has(req.socket)) connections.set(req.socket, ++connectionCount);
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body, at: performance.now(), connection: connections.get(req.socket)! };
    requests.push(rec);
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    const path = url.pathname;
    // Gemini's OpenAI-compatible endpoint lives under /v1beta/openai/.
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1beta/openai/chat/completions')) return chatCompletion(res, body ?? {}, answerFor(body ?? {}, rec));
    if (path.startsWith('/v1/assistants') || path.startsWith('/v1/threads')) {
      if (req.headers['openai-beta'] !== 'assistants=v2') {
        return sendJson(res, 400, { error: { message: "You must provide the 'OpenAI-Beta' header to access the Assistants API. Please try again by setting the header 'OpenAI-Beta: assistants=v2'.", type: 'invalid_request_error' } });
      }
      return assistantsApi(req.method ?? 'GET', path, body ?? {}, res);
    }
    sendJson(res, 404, { error: { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error' } });
  });

  async function chatCompletion(res: http.ServerResponse, body: Record<string, unknown>, a: FakeAnswer) {
    if (a.headersDelayMs) await sleep(a.headersDelayMs);
    if (a.status && a.status >= 400) {
      return sendJson(res, a.status, { error: { message: a.status === 429 ? 'Rate limit reached' : 'The server had an error while processing your request.', type: 'server_error' } });
    }
    const model = String(body.model ?? 'fake');
    const created = Math.floor(Date.now() / 1000);
    const chunkId = id('chatcmpl');
    const pieces = a.chunks ?? (a.text ? (a.text.match(WORD) ?? []) : []);
    if (body.stream !== true) {
      return sendJson(res, 200, {
        id: chunkId,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') || null, ...(a.toolCalls ? { tool_calls: a.toolCalls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: c })) } : {}) }, finish_reason: a.toolCalls ? 'tool_calls' : 'stop' }],
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ id: chunkId, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    if (a.firstTokenDelayMs) await sleep(a.firstTokenDelayMs);
    if (res.destroyed) return;
    send({ role: 'assistant', content: '' });
    let sent = 0;
    for (const piece of pieces) {
      if (a.dropAfterChunks !== undefined && sent >= a.dropAfterChunks) return void res.socket?.destroy();
      if (a.stallAfterChunks !== undefined && sent >= a.stallAfterChunks) return;
      send({ content: piece });
      sent++;
      if (a.chunkDelayMs) await sleep(a.chunkDelayMs);
      if (res.destroyed) return;
    }
    if (a.dropAfterChunks !== undefined && sent >= a.dropAfterChunks) return void res.socket?.destroy();
    if (a.stallAfterChunks !== undefined && sent >= a.stallAfterChunks) return;
    for (const [index, call] of (a.toolCalls ?? []).entries()) {
      // As OpenAI streams them: id, type and name first, the arguments in fragments.
      send({ tool_calls: [{ index, id: `call_${chunkId}_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] });
      const half = Math.ceil(call.arguments.length / 2);
      for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) if (part) send({ tool_calls: [{ index, function: { arguments: part } }] });
    }
    send({}, a.toolCalls?.length ? 'tool_calls' : 'stop');
    res.write('data: [DONE]\n\n');
    if (a.endDelayMs) await sleep(a.endDelayMs);
    res.end();
  }

  function streamEvents(res: http.ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    return (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }

  function runObject(run: Run, extra: Record<string, unknown> = {}) {
    return { id: run.id, object: 'thread.run', thread_id: run.threadId, assistant_id: run.assistantId, status: run.status, ...extra };
  }

  /** Runs the "model" over the thread and streams the run's events until it completes or needs tool outputs. */
  async function continueRun(run: Run, res: http.ServerResponse, emit: (event: string, data: unknown) => boolean) {
    const thread = threads.get(run.threadId)!;
    run.status = 'in_progress';
    emit('thread.run.in_progress', runObject(run));
    if (options.failRunsWith) {
      run.status = 'failed';
      thread.activeRun = null;
      emit('thread.run.failed', runObject(run, { last_error: { code: 'server_error', message: options.failRunsWith } }));
      emit('done', '[DONE]');
      return res.end();
    }
    const messages: SimpleMessage[] = [{ role: 'system', content: run.instructions }, ...thread.messages, ...run.toolMessages];
    const a = { ...options.defaults, ...(options.runAnswer ?? simulateModel)(messages, run.toolNames) };
    if (a.toolCalls?.length) {
      run.status = 'requires_action';
      run.pending = a.toolCalls.map((c, i) => ({ id: `call_${run.id}_${run.toolMessages.length}_${i}`, name: c.name }));
      emit('thread.run.requires_action', runObject(run, { required_action: { type: 'submit_tool_outputs', submit_tool_outputs: { tool_calls: a.toolCalls.map((c, i) => ({ id: run.pending[i]!.id, type: 'function', function: c })) } } }));
      emit('done', '[DONE]');
      return res.end();
    }
    const msgId = id('msg');
    emit('thread.message.created', { id: msgId, object: 'thread.message', thread_id: run.threadId, role: 'assistant', content: [], status: 'in_progress' });
    if (a.firstTokenDelayMs) await sleep(a.firstTokenDelayMs);
    const pieces = a.text?.match(WORD) ?? [];
    for (const piece of pieces) {
      if (res.destroyed) return;
      emit('thread.message.delta', { id: msgId, object: 'thread.message.delta', delta: { content: [{ index: 0, type: 'text', text: { value: piece, annotations: [] } }] } });
      if (a.chunkDelayMs) await sleep(a.chunkDelayMs);
    }
    const text = pieces.join('');
    thread.messages.push({ role: 'assistant', content: text });
    emit('thread.message.completed', { id: msgId, object: 'thread.message', thread_id: run.threadId, role: 'assistant', status: 'completed', content: [{ type: 'text', text: { value: text, annotations: [] } }] });
    run.status = 'completed';
    thread.activeRun = null;
    emit('thread.run.completed', runObject(run));
    emit('done', '[DONE]');
    res.end();
  }

  async function assistantsApi(method: string, path: string, body: Record<string, unknown>, res: http.ServerResponse) {
    let m: RegExpExecArray | null;
    if (method === 'GET' && (m = /^\/v1\/assistants\/([^/]+)$/.exec(path))) {
      const a = assistants.get(decodeURIComponent(m[1]!));
      if (!a) return sendJson(res, 404, { error: { message: `No assistant found with id '${m[1]}'.`, type: 'invalid_request_error' } });
      return sendJson(res, 200, { id: a.id, object: 'assistant', model: a.model, instructions: a.instructions ?? null, tools: a.tools ?? [] });
    }
    if (method === 'DELETE' && (m = /^\/v1\/threads\/([^/]+)$/.exec(path))) {
      const deleted = threads.delete(m[1]!);
      return sendJson(res, deleted ? 200 : 404, deleted ? { id: m[1], object: 'thread.deleted', deleted: true } : { error: { message: 'No thread found' } });
    }
    if (method === 'POST' && (m = /^\/v1\/threads\/([^/]+)\/runs\/([^/]+)\/cancel$/.exec(path))) {
      const run = runs.get(m[2]!);
      if (!run) return sendJson(res, 404, { error: { message: 'No run found' } });
      run.status = 'cancelled';
      threads.get(run.threadId)!.activeRun = null;
      return sendJson(res, 200, runObject(run));
    }
    if (method === 'POST' && (m = /^\/v1\/threads\/([^/]+)\/runs\/([^/]+)\/submit_tool_outputs$/.exec(path))) {
      const run = runs.get(m[2]!);
      if (!run || run.status !== 'requires_action') return sendJson(res, 400, { error: { message: 'Runs in status "requires_action" only' } });
      const outputs = (body.tool_outputs as { tool_call_id: string; output: string }[]) ?? [];
      for (const p of run.pending) {
        const o = outputs.find((x) => x.tool_call_id === p.id);
        if (!o) return sendJson(res, 400, { error: { message: `Expected tool outputs for call_ids ${run.pending.map((x) => x.id).join(', ')}` } });
        run.toolMessages.push({ role: 'tool', content: o.output });
      }
      run.pending = [];
      return continueRun(run, res, streamEvents(res));
    }
    const create = method === 'POST' && path === '/v1/threads/runs';
    if (create || (method === 'POST' && (m = /^\/v1\/threads\/([^/]+)\/runs$/.exec(path)))) {
      const assistant = assistants.get(String(body.assistant_id));
      if (!assistant) return sendJson(res, 404, { error: { message: `No assistant found with id '${String(body.assistant_id)}'.` } });
      let threadId: string;
      let newThread = false;
      if (create) {
        threadId = id('thread');
        newThread = true;
        const initial = ((body.thread as { messages?: { role: string; content: unknown }[] })?.messages ?? []).map((x) => ({ role: x.role, content: contentText(x.content) }));
        threads.set(threadId, { messages: initial, activeRun: null });
      } else {
        threadId = m![1]!;
        if (!threads.has(threadId)) return sendJson(res, 404, { error: { message: `No thread found with id '${threadId}'.` } });
      }
      const thread = threads.get(threadId)!;
      if (thread.activeRun) return sendJson(res, 400, { error: { message: `Thread ${threadId} already has an active run ${thread.activeRun}.` } });
      for (const x of (body.additional_messages as { role: string; content: unknown }[]) ?? []) thread.messages.push({ role: x.role, content: contentText(x.content) });
      const tools = (body.tools as { type: string; function?: { name: string } }[]) ?? assistant.tools ?? [];
      const run: Run = {
        id: id('run'),
        threadId,
        assistantId: assistant.id,
        instructions: [typeof body.instructions === 'string' ? body.instructions : (assistant.instructions ?? ''), typeof body.additional_instructions === 'string' ? body.additional_instructions : ''].filter(Boolean).join('\n\n'),
        toolNames: tools.filter((t) => t.type === 'function' && t.function).map((t) => t.function!.name),
        status: 'queued',
        pending: [],
        toolMessages: [],
      };
      runs.set(run.id, run);
      thread.activeRun = run.id;
      if (body.stream !== true) return sendJson(res, 200, runObject(run));
      const emit = streamEvents(res);
      if (newThread) emit('thread.created', { id: threadId, object: 'thread', created_at: Math.floor(Date.now() / 1000), metadata: {} });
      emit('thread.run.created', runObject(run));
      emit('thread.run.queued', runObject(run));
      return continueRun(run, res, emit);
    }
    sendJson(res, 404, { error: { message: `Invalid URL (${method} ${path})` } });
  }

  return {
    url: `${server.origin}/v1`,
    origin: server.origin,
    requests,
    chatBodies: () => requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body ?? {}),
    threads,
    options,
    close: server.close,
  };
}
