import { z } from 'zod';
import { ZId, ZStatus, zDateMs } from './common.js';
import { ZPlanOffer, ZSubscriptionType } from './plans.js';

export const AccountMessages = {
  accountLoadFailed: 'Failed to fetch Account Details. Please try again',
  billingLoadFailed: 'Failed to fetch billing data.',
  startAfterEnd: 'Start date cannot be greater than end date.',
  dateInFuture: 'Dates cannot be later than today.',
  badDate: 'startDate and endDate must be dates in milliseconds since 1970.',
  rangeTooLong: 'The billing range cannot be longer than 5 years.',
  planRequestFailed: 'An error occurred while processing your subscription request. Please try again later.',
  planRequestSent: 'Request Sent',
  samePlan: 'The chosen plan is already your current plan.',
  requestPending: 'A plan change request is already pending.',
  notAPlan: 'Choose one of the plans FREE, STARTER, PRO or ENTERPRISE.',
  noPendingRequest: 'There is no pending plan request to withdraw.',
  planRequestWithdrawn: 'Plan request withdrawn',
  planWithdrawFailed: 'The plan request could not be withdrawn. Please try again later.',
} as const;

/** accountDetails, with the spec's field names (some contain spaces). */
export const ZAccountDetails = z.object({
  Id: z.number().int(),
  Name: z.string(),
  Email: z.string(),
  Status: z.string(),
  'Create Date': z.string(),
  'Last Updated': z.string(),
  'Subscribed Since': z.string(),
  userType: z.string(),
  /** The plan asked for and not yet decided (absent when none). */
  requestedSubType: ZSubscriptionType.nullable(),
  licenses: z.object({ webgl: z.object({ subscriptionType: ZSubscriptionType }) }),
  /** How many avatars the plan allows (null: unlimited). */
  maxAvatars: z.number().int().nullable(),
  /** How many avatars the account has now. */
  avatarCount: z.number().int().optional(),
  /** Every plan and what it unlocks, from the limits the server enforces. */
  plans: z.array(ZPlanOffer).optional(),
  /** Where to send what the portal cannot take itself (an image avatar's photo): configuration. */
  contactEmail: z.string().optional(),
  /** What the avatar creator reads (spec "Account info used by the creator"). */
  'Assigned Pools': z.string().optional(),
  customAvatarsJsonUrl: z.string().optional(),
  defaultAvatarsList: z.string().optional(),
  defaultRealtimeSettingsUrl: z.string().optional(),
  defaultEnvsListUrl: z.string().optional(),
  encKeys: z.array(z.object({ id: z.number(), name: z.string(), defaultKey: z.boolean() })).optional(),
  languages: z.array(z.object({ code: z.string(), name: z.string() })).optional(),
  lists: z.record(z.string(), z.unknown()).optional(),
});
export type TAccountDetails = z.infer<typeof ZAccountDetails>;

export const ZAccountInfoResponse = z.object({
  status: ZStatus,
  accountDetails: ZAccountDetails,
});

/** ms since 1970, inside 1970–9999 (a later end would overflow JavaScript's and PostgreSQL's dates). */
const ZMs = zDateMs(AccountMessages.badDate);

export const ZAccountStatsQuery = z
  .object({ startDate: ZMs, endDate: ZMs })
  .check((ctx) => {
    const { startDate, endDate } = ctx.value;
    if (startDate > endDate) ctx.issues.push({ code: 'custom', message: AccountMessages.startAfterEnd, path: ['startDate'], input: startDate });
    else if (endDate - startDate > 5 * 366 * 86_400_000)
      ctx.issues.push({ code: 'custom', message: AccountMessages.rangeTooLong, path: ['endDate'], input: endDate });
  });
export type TAccountStatsQuery = z.infer<typeof ZAccountStatsQuery>;

export const ZBillingRow = z.object({
  avatarName: z.string(),
  avatarId: z.number().int(),
  /** Minutes, two decimals. */
  totalCallDuration: z.number(),
  totalCallCount: z.number().int(),
});
export type TBillingRow = z.infer<typeof ZBillingRow>;

export const ZAccountStatsResponse = z.object({
  status: ZStatus,
  billingData: z.array(ZBillingRow),
  cummulativeData: z.object({ totalCallDuration: z.number(), totalCallCount: z.number().int() }),
});
export type TAccountStatsResponse = z.infer<typeof ZAccountStatsResponse>;

export const ZAccountUpgradeRequest = z.object({
  subType: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], { error: AccountMessages.notAPlan }),
  dhType: z.number().int().min(0).max(10).default(2),
});
export type TAccountUpgradeRequest = z.input<typeof ZAccountUpgradeRequest>;

export const ZPlanRequestStatus = z.enum(['PENDING', 'CONFIRMED', 'DECLINED', 'WITHDRAWN']);
export type TPlanRequestStatus = z.infer<typeof ZPlanRequestStatus>;

export const ZPlanRequest = z.object({
  id: z.number().int(),
  userId: z.number().int(),
  userName: z.string(),
  email: z.string(),
  currentSubType: ZSubscriptionType,
  requestedSubType: ZSubscriptionType,
  status: ZPlanRequestStatus,
  created: z.string(),
  decided: z.string().nullable(),
  decidedBy: z.string().nullable(),
  reason: z.string().nullable(),
});
export type TPlanRequest = z.infer<typeof ZPlanRequest>;

export const ZAccountUpgradeResponse = z.object({ status: ZStatus, request: ZPlanRequest, errors: z.array(z.string()).optional() });

/** POST /api/account_upgrade_withdraw: the caller withdraws their own pending plan request. */
export const ZWithdrawPlanRequestResponse = z.object({ status: ZStatus, request: ZPlanRequest });

/** The administrator's side of plan requests (the Requests page). */
export const ZPlanRequestsQuery = z.object({ status: ZPlanRequestStatus.optional() });
export const ZPlanRequestsResponse = z.object({ status: ZStatus, requests: z.array(ZPlanRequest) });
export const ZDecidePlanRequest = z.object({
  requestId: ZId,
  decision: z.enum(['confirm', 'decline']),
  reason: z.string().trim().max(500).optional(),
});
export const ZDecidePlanResponse = z.object({ status: ZStatus, request: ZPlanRequest });
