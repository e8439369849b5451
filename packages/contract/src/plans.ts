import { z } from 'zod';

/** Subscription types with the spec's codes: NONE 0, FREE 1, PRO 2, STARTER 3, ENTERPRISE 4. */
export const SubscriptionType = { NONE: 0, FREE: 1, PRO: 2, STARTER: 3, ENTERPRISE: 4 } as const;
export type TSubscriptionType = (typeof SubscriptionType)[keyof typeof SubscriptionType];
export const ZSubscriptionType = z.union([
  z.literal(0),
  z.literal(1),
  z.literal(2),
  z.literal(3),
  z.literal(4),
]);

export const SubscriptionTypeName: Record<TSubscriptionType, string> = {
  0: 'NONE',
  1: 'FREE',
  2: 'PRO',
  3: 'STARTER',
  4: 'ENTERPRISE',
};

/** Comparison order: FREE < STARTER < PRO < ENTERPRISE (NONE below all). */
const RANK: Record<TSubscriptionType, number> = { 0: 0, 1: 1, 3: 2, 2: 3, 4: 4 };

export function comparePlans(a: TSubscriptionType, b: TSubscriptionType): number {
  return RANK[a] - RANK[b];
}

export interface TPlan {
  code: TSubscriptionType;
  name: string;
  /** USD per month; null means flexible pricing. */
  priceUsdMonth: number | null;
}

/** The plans a customer can choose, in display order. */
export const Plans: readonly TPlan[] = [
  { code: SubscriptionType.FREE, name: 'FREE', priceUsdMonth: 0 },
  { code: SubscriptionType.STARTER, name: 'STARTER', priceUsdMonth: 199 },
  { code: SubscriptionType.PRO, name: 'PRO', priceUsdMonth: 399 },
  { code: SubscriptionType.ENTERPRISE, name: 'ENTERPRISE', priceUsdMonth: null },
];

/** Image (and video) avatars: PRO and ENTERPRISE only (spec "Appearance"). The server enforces this rule. */
export function hasImageAvatars(code: number): boolean {
  return code === SubscriptionType.PRO || code === SubscriptionType.ENTERPRISE;
}

/** What a plan unlocks, as the server enforces it (maxAvatars from its PLAN_MAX_AVATARS; null: unlimited). */
export const ZPlanOffer = z.object({
  code: ZSubscriptionType,
  name: z.string(),
  priceUsdMonth: z.number().nullable(),
  maxAvatars: z.number().int().nullable(),
  imageAvatars: z.boolean(),
});
export type TPlanOffer = z.infer<typeof ZPlanOffer>;
