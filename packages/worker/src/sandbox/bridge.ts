import type { GuardedFetch } from '../core/types.js';
import type { SandboxOutboundOptions } from './types.js';

/**
 * The sandbox's one way out: a python function allowed on the network calls urllib, whose
 * requests the process writes to its bridge pipe; the pool hands each one here. The message is
 * untrusted (it comes from the user's code): it is checked, its steering headers dropped, and the
 * request made through the session's guarded fetch within the call's limits — its time left, a
 * number of requests, body sizes.
 */

export const OUTBOUND = { timeoutMs: 8000, maxResponseBytes: 1024 * 1024, maxRequestBytes: 256 * 1024, maxRequestsPerCall: 10 } as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Set by the fetch itself, or would let the function steer the connection. */
const DROPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'expect']);

/** The running call a request belongs to, as far as the bridge needs it. */
export interface BridgeCall {
  allowNetwork: boolean;
  /** Requests this call has made before this one. */
  requestsMade: number;
  /** When the call's time runs out (ms since the epoch). */
  deadline: number;
  fetch: GuardedFetch;
  /** Aborted when the call ends. */
  signal: AbortSignal;
}

/** The answer the process's urllib reads: the response, or an error message. */
export type BridgeAnswer = { status: number; reason: string; headers: [string, string][]; url: string; body: string } | { error: string };

/** Makes one request of a call (or says why not). Never throws. */
export async function forwardRequest(message: unknown, call: BridgeCall, outbound: SandboxOutboundOptions): Promise<BridgeAnswer> {
  if (!call.allowNetwork) return { error: 'Network access is not allowed for this function.' };
  const maxRequests = outbound.maxRequestsPerCall ?? OUTBOUND.maxRequestsPerCall;
  if (call.requestsMade + 1 > maxRequests) return { error: `A function call may make at most ${maxRequests} requests.` };
  const request = parseBridgeRequest(message, outbound.maxRequestBytes ?? OUTBOUND.maxRequestBytes);
  if (typeof request === 'string') return { error: request };
  const timeoutMs = Math.min(call.deadline - Date.now(), outbound.timeoutMs ?? OUTBOUND.timeoutMs, request.timeoutMs);
  if (timeoutMs <= 0) return { error: 'There is no time left for the request.' };
  try {
    const response = await call.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      timeoutMs,
      maxBytes: outbound.maxResponseBytes ?? OUTBOUND.maxResponseBytes,
      signal: call.signal,
    });
    const body = Buffer.from(await response.arrayBuffer());
    // The body arrives decoded: its encoding and length headers no longer describe it.
    const headers = [...response.headers].filter(([name]) => name !== 'content-encoding' && name !== 'content-length');
    return { status: response.status, reason: response.statusText, headers, url: response.url || request.url, body: body.toString('base64') };
  } catch (err) {
    return { error: err instanceof Error ? err.message : 'The request failed.' };
  }
}

/** A request from urllib (untrusted: it comes from the sandbox), or why it cannot be made. */
function parseBridgeRequest(
  message: unknown,
  maxBodyBytes: number,
): { method: string; url: string; headers: Record<string, string>; body: Buffer | null; timeoutMs: number } | string {
  const r = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  if (typeof r.url !== 'string' || typeof r.method !== 'string') return 'The request is not valid.';
  const method = r.method.toUpperCase();
  if (!METHODS.has(method)) return `The method ${method.slice(0, 20)} is not allowed.`;
  const headers: Record<string, string> = {};
  if (typeof r.headers === 'object' && r.headers !== null) {
    for (const [name, value] of Object.entries(r.headers)) {
      if (typeof value === 'string' && !DROPPED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
  }
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'base64') : null;
  if (body && body.length > maxBodyBytes) return `The request body is larger than ${Math.round(maxBodyBytes / 1024)} KB.`;
  const timeoutMs = typeof r.timeout === 'number' && r.timeout > 0 ? r.timeout * 1000 : Infinity;
  return { method, url: r.url, headers, body, timeoutMs };
}
