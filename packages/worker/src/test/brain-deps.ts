import { LiveSpeechDefaults, type TLiveBrainConfig, type TLiveHistoryEntry, type TLivePassage, type TLiveSessionConfig } from '@persona/contract';
import type { BrainLogger, ToolRunner } from '../core/types.js';
import type { Brain, BrainDeps, BrainEvent } from '../brains/types.js';
import { createGuardedFetch, type GuardedFetchHandle } from '@persona/net';

/** A session's configuration as the portal sends it, for brain tests. */
export function sessionConfig(brain: TLiveBrainConfig, overrides: Omit<Partial<TLiveSessionConfig>, 'avatar'> & { avatar?: Partial<TLiveSessionConfig['avatar']> } = {}): TLiveSessionConfig {
  const { avatar, ...rest } = overrides;
  return {
    sessionId: 'sess-0123456789abcdef',
    resumed: false,
    avatar: {
      id: 42,
      name: 'Ava',
      ownerUserId: 7,
      nlpEngine: 10,
      setupMode: 1,
      wakeUpMessage: 'Hello!',
      idleTimeoutSeconds: 300,
      demoSeconds: -1,
      startedAt: Date.now(),
      sendChatHistory: false,
      permissions: 0,
      summaryEnabled: false,
      hasKnowledge: false,
      ...avatar,
    },
    brain,
    speech: LiveSpeechDefaults,
    functions: [],
    echo: false,
    history: [],
    memory: null,
    visitorId: 'visitor-1',
    allowPrivateUrls: true,
    textOnly: true,
    ...rest,
  };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  msg: string;
  data?: object;
}

export interface TestDeps extends BrainDeps {
  lines: LogLine[];
  knowledgeQueries: string[];
  fetch: GuardedFetchHandle;
}

/**
 * Brain dependencies for tests: the real guarded fetch with allowPrivate (the fakes listen on
 * 127.0.0.1), a recording logger, and scripted knowledge and tools.
 */
export function testDeps(config: TLiveSessionConfig, extra: { passages?: TLivePassage[] | ((q: string) => TLivePassage[] | Promise<TLivePassage[]>); tools?: ToolRunner | null } = {}): TestDeps {
  const lines: LogLine[] = [];
  const knowledgeQueries: string[] = [];
  const log: BrainLogger = {
    info: (msg, data) => lines.push({ level: 'info', msg, data }),
    warn: (msg, data) => lines.push({ level: 'warn', msg, data }),
    error: (msg, data) => lines.push({ level: 'error', msg, data }),
  };
  return {
    config,
    log,
    lines,
    knowledgeQueries,
    knowledge: async (query) => {
      knowledgeQueries.push(query);
      const p = extra.passages;
      return typeof p === 'function' ? await p(query) : (p ?? []);
    },
    tools: extra.tools ?? null,
    fetch: createGuardedFetch({ allowPrivate: config.allowPrivateUrls }),
    now: () => Date.now(),
  };
}

/** A ToolRunner standing in for the sandbox: each function is a JS function of its parsed arguments. */
export function fakeTools(fns: Record<string, { description?: string; parameters?: Record<string, unknown>; run: (args: Record<string, unknown>) => string | Promise<string> }>): ToolRunner & { calls: { name: string; args: string }[] } {
  const calls: { name: string; args: string }[] = [];
  return {
    calls,
    tools: async () =>
      Object.entries(fns).map(([name, f]) => ({ name, description: f.description ?? `The ${name} function.`, parameters: f.parameters ?? { type: 'object', properties: {} } })),
    call: async (name, argsJson) => {
      calls.push({ name, args: argsJson });
      const fn = fns[name];
      if (!fn) return { ok: false, error: `unknown function ${name}` };
      try {
        return { ok: true, result: await fn.run(JSON.parse(argsJson) as Record<string, unknown>) };
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** Runs one turn and collects its events. */
export async function collect(brain: Brain, text: string, history: TLiveHistoryEntry[] = [], signal: AbortSignal = new AbortController().signal): Promise<BrainEvent[]> {
  const events: BrainEvent[] = [];
  for await (const ev of brain.reply({ text, history, signal })) events.push(ev);
  return events;
}

export const textOf = (events: BrainEvent[]) =>
  events
    .filter((e) => e.type === 'text')
    .map((e) => (e as { delta: string }).delta)
    .join('');

export function entry(role: 'user' | 'assistant', text: string): TLiveHistoryEntry {
  return { role, text, at: Date.now() };
}
