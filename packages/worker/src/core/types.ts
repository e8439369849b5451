import type { GuardedFetch } from '@persona/net';

/** The types every floor of the worker shares: what providers, brains, the sandbox and live sessions are given. */

/** A fetch that refuses private addresses (unless the portal allows them) at connect time. */
export type { GuardedFetch };

export interface BrainLogger {
  info(msg: string, data?: object): void;
  warn(msg: string, data?: object): void;
  error(msg: string, data?: object): void;
}

/** Runs the avatar's linked python functions (sandbox pool). */
export interface ToolRunner {
  /** OpenAI-style tool definitions of the linked functions. */
  tools(): Promise<{ name: string; description: string; parameters: Record<string, unknown> }[]>;
  /** Runs one call; never throws for the function's own failures: they come back as ok:false. */
  call(name: string, argsJson: string, signal: AbortSignal): Promise<{ ok: true; result: string } | { ok: false; error: string }>;
}
