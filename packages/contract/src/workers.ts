import { z } from 'zod';
import { ZWorkerRpcRequest, ZWorkerRpcResult, ZWorkerSessionStop } from './live/worker-rpc.js';

/** The worker ("VPS") websocket protocol between avatar servers and the portal server. */
export const WorkerProtocol = {
  path: '/api/worker/ws',
  pingIntervalMs: 10_000,
  /** No ping for this long makes a worker DISCONNECTED. */
  pingTimeoutMs: 30_000,
  /** Close code the server uses when an admin deletes the worker: do not reconnect. */
  closeDeleted: 4001,
  closeUnauthorized: 4003,
  closeReplaced: 4009,
} as const;

export const ZWorkerStatus = z.enum(['AVAILABLE', 'BUSY']);

export const ZWorkerRegister = z.object({
  type: z.literal('register'),
  /** Stable id the worker keeps across restarts (its name by default). */
  vpsId: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
  address: z.string().max(255),
  privateIp: z.string().max(64),
  webSocket: z.string().max(500),
  status: ZWorkerStatus,
  version: z.string().max(50).optional(),
  /** Live sessions it holds now (0 when it just started). */
  sessions: z.number().int().min(0).max(100_000).optional(),
  /** Live sessions it accepts at most. */
  capacity: z.number().int().min(0).max(100_000).optional(),
  /** It holds the operator's key for the product's own realtime (REALTIME_API_KEY). */
  productRealtime: z.boolean().optional(),
});
export const ZWorkerPing = z.object({
  type: z.literal('ping'),
  status: ZWorkerStatus,
  sessions: z.number().int().min(0).max(100_000).optional(),
});
export const ZWorkerMessage = z.discriminatedUnion('type', [ZWorkerRegister, ZWorkerPing, ZWorkerRpcRequest]);
export type TWorkerMessage = z.infer<typeof ZWorkerMessage>;

export const ZServerToWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('registered'), id: z.number().int(), sessionId: z.string() }),
  z.object({ type: z.literal('pong'), at: z.number() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  ZWorkerRpcResult,
  ZWorkerSessionStop,
]);
export type TServerToWorker = z.infer<typeof ZServerToWorker>;
