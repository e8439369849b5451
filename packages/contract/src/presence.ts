import { z } from 'zod';
import { ZStatus, ZId } from './common.js';

/** Presence: who is talking to an avatar now (the Online Users pages and the avatar's own list). */
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
