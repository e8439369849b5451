import { z } from 'zod';
import { AdminMessages } from './admin.js';
import { ZStatus } from './common.js';
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
  /** Enrolled with the shared secret: reconnect with the credential just received (ADR 086). */
  closeEnrolled: 4010,
  /** A worker with this vpsId is connected already: try again later (it is not displaced). */
  closeDuplicate: 4011,
} as const;

/** Why the portal refused a worker's registration (the `error` message before the close). */
export const WorkerRefusals = {
  duplicate: 'A worker with this vpsId is connected already',
  otherVpsId: 'This credential belongs to another vpsId',
  revoked: 'This worker credential was revoked',
  enrolmentOnly: 'The shared worker secret only enrols: reconnect with the credential it gave',
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
  z.object({
    type: z.literal('registered'),
    id: z.number().int(),
    sessionId: z.string(),
    /** This worker's keys for the pages' and agents' tickets (base64url; derived per worker, ADR 086). */
    ticketKey: z.string().optional(),
    agentTicketKey: z.string().optional(),
  }),
  /** Enrolment with the shared secret: this worker's own credential; the socket closes next (closeEnrolled). */
  z.object({ type: z.literal('enrolled'), vpsId: z.string(), credential: z.string() }),
  z.object({ type: z.literal('pong'), at: z.number() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  ZWorkerRpcResult,
  ZWorkerSessionStop,
]);
export type TServerToWorker = z.infer<typeof ZServerToWorker>;

/** A worker's credential as the admin list shows it (never the credential itself). */
export const ZWorkerCredential = z.object({
  id: z.number().int(),
  vpsId: z.string(),
  issuedBy: z.enum(['admin', 'enrolment']),
  created: z.string(),
  lastUsed: z.string().nullable(),
  revoked: z.string().nullable(),
});
export type TWorkerCredential = z.infer<typeof ZWorkerCredential>;
/** vpsId: letters, digits, dot, dash, underscore (the names workers register with). */
export const ZWorkerCredentialIssue = z.object({ vpsId: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/, 'vpsId may hold letters, digits, dot, dash and underscore') });
export const ZWorkerCredentialIssued = z.object({ status: z.literal('OK'), credential: z.string(), workerCredential: ZWorkerCredential });
export const ZWorkerCredentialRevoke = z.object({ id: z.number().int().positive() });
export const ZWorkerCredentialList = z.object({ status: z.literal('OK'), workerCredentials: z.array(ZWorkerCredential) });

/** The admin's VPS Status page: the workers as the spec's `list_vps`/`get_vps`/`del_vps` name them. */
export const ZVpsStatus = z.enum(['AVAILABLE', 'BUSY', 'DISCONNECTED']);
export type TVpsStatus = z.infer<typeof ZVpsStatus>;

export const ZVps = z.object({
  id: z.number().int(),
  vpsId: z.string(),
  name: z.string(),
  vpsName: z.string(),
  sessionId: z.string().nullable(),
  vpsAddress: z.string(),
  dockerPrivateIp: z.string(),
  remoteIp: z.string(),
  status: ZVpsStatus,
  assignedUserId: z.number().int().nullable(),
  webSocket: z.string(),
  created: z.string(),
  lastConnectTime: z.string().nullable(),
  lastPingTime: z.string().nullable(),
  lastUsedTime: z.string().nullable(),
});
export type TVps = z.infer<typeof ZVps>;

export const ZListVpsResponse = z.object({ status: ZStatus, vpsList: z.array(ZVps) });
/**
 * Which server: its `vpsId` as list_vps answers it (the name it registered with, e.g. "embedded"),
 * or its numeric `id` (what the portal's VPS page sends).
 */
export const ZVpsRef = z.union([
  z.number({ error: AdminMessages.vpsInvalid }).int({ error: AdminMessages.vpsInvalid }).positive({ error: AdminMessages.vpsInvalid }).max(2_147_483_647, { error: AdminMessages.vpsInvalid }),
  z.string({ error: AdminMessages.vpsInvalid }).min(1, { error: AdminMessages.vpsInvalid }).max(100, { error: AdminMessages.vpsInvalid }),
], { error: AdminMessages.vpsInvalid });
export type TVpsRef = z.infer<typeof ZVpsRef>;
export const ZVpsIdRequest = z.object({ vpsId: ZVpsRef, mode: z.enum(['get', 'delete']) });
export const ZGetVpsResponse = z.object({ status: ZStatus, vpsDetail: ZVps, errors: z.array(z.string()).optional() });
/** `vpsId` is the one the call named. */
export const ZDelVpsResponse = z.object({ status: ZStatus, vpsId: ZVpsRef, errors: z.array(z.string()).optional() });
