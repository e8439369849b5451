import { z } from 'zod';
import { ZStatus, ZId, INT32_MAX } from './common.js';
import { ZSubscriptionType } from './plans.js';
import { ZUserStatus, ZUserType } from './auth.js';

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
