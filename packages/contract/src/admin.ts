import { z } from 'zod';
import { ZStatus, ZId, INT32_MAX } from './common.js';
import { ZPlanRequest, ZPlanRequestStatus } from './account.js';
import { ZSubscriptionType } from './plans.js';
import { ZUserStatus, ZUserType } from './auth.js';

export const AdminMessages = {
  onlineUsersLoadFailed: 'Failed to fetch online users',
  onlineUsersHint: 'Check your connection and press refresh. If the problem persists, look at the server log.',
  vpsLoadFailed: 'Failed to fetch VPS list',
  vpsDeleteServerError: 'Server Error occured while Delete',
  vpsInvalid: 'Invalid VPS',
  vpsAlreadyDisconnected: 'VPS was already discinnected',
  sessionNotFound: 'This session is no longer online.',
  cannotDisableSelf: 'You cannot disable your own account.',
  lastActiveAdmin: 'This is the last active administrator account: enable or create another administrator first.',
  requestAlreadyDecided: 'This request has already been decided.',
  usersLoadFailed: 'Failed to fetch users',
  requestsLoadFailed: 'Failed to fetch plan requests',
} as const;

/** An avatar conversation that is live now (spec: online user). */
export const ZOnlineUser = z.object({
  sessionId: z.string(),
  userName: z.string(),
  deviceOS: z.string(),
  onlineStatus: z.string(),
  locale: z.string(),
  lastConnectTimeStamp: z.number(),
  ipAddress: z.string(),
  spokenLanguage: z.string(),
});
export type TOnlineUser = z.infer<typeof ZOnlineUser>;

export const ZOnlineUserDetail = ZOnlineUser.extend({
  userId: z.string(),
  deviceId: z.string(),
  deviceCount: z.number().int(),
  avatarIdAndType: z.string(),
});
export type TOnlineUserDetail = z.infer<typeof ZOnlineUserDetail>;

export const ZModeGet = z.literal('get');
export const ZListOnlineUsersRequest = z.object({ mode: ZModeGet });
export const ZListOnlineUsersResponse = z.object({ status: ZStatus, onlineUsers: z.array(ZOnlineUser) });
export const ZGetOnlineUserRequest = z.object({ sessionId: z.string().min(1).max(200), mode: ZModeGet });
export const ZGetOnlineUserResponse = z.object({ status: ZStatus, userDetail: ZOnlineUserDetail, errors: z.array(z.string()).optional() });
export const ZListAvatarUsersRequest = z.object({ agentId: ZId, mode: ZModeGet });
export const ZListAvatarUsersResponse = z.object({
  agentId: z.number().int(),
  status: ZStatus,
  onlineUsers: z.array(ZOnlineUser),
  errors: z.array(z.string()).optional(),
});

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

/** The admin console's Users page. */
export const ZAdminUser = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  companyName: z.string(),
  userType: ZUserType,
  status: ZUserStatus,
  subscriptionType: ZSubscriptionType,
  created: z.string(),
  /** The signed-in administrator's own account (which they cannot disable). */
  isSelf: z.boolean().optional(),
});
export type TAdminUser = z.infer<typeof ZAdminUser>;
export const ZAdminUsersQuery = z.object({
  search: z.string().max(200).default(''),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(INT32_MAX).default(0),
});
export const ZAdminUsersResponse = z.object({ status: ZStatus, users: z.array(ZAdminUser), total: z.number().int() });
export const ZAdminUserStatusRequest = z.object({ userId: ZId, status: z.enum(['ACTIVE', 'DISABLED']) });
export const ZAdminUserResponse = z.object({ status: ZStatus, user: ZAdminUser });

export const ZPlanRequestsQuery = z.object({ status: ZPlanRequestStatus.optional() });
export const ZPlanRequestsResponse = z.object({ status: ZStatus, requests: z.array(ZPlanRequest) });
export const ZDecidePlanRequest = z.object({
  requestId: ZId,
  decision: z.enum(['confirm', 'decline']),
  reason: z.string().trim().max(500).optional(),
});
export const ZDecidePlanResponse = z.object({ status: ZStatus, request: ZPlanRequest });
export { ZSubscriptionType };
