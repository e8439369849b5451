import { comparePlans, Plans, SubscriptionTypeName, type TPlan, type TPlanOffer, type TSubscriptionType } from '@persona/contract';

/** The plan dialog's rules (spec section 4, "Subscription request"). */

export function planName(code: TSubscriptionType | null | undefined): string {
  return code === null || code === undefined ? '—' : SubscriptionTypeName[code];
}

export function planPrice(plan: TPlan): string {
  return plan.priceUsdMonth === null ? 'Flexible pricing' : `USD ${plan.priceUsdMonth}/month`;
}

export function findPlan(code: TSubscriptionType): TPlan | undefined {
  return Plans.find((plan) => plan.code === code);
}

/** 'Request Upgrade' when the target is at or above the current plan, else 'Request Downgrade'. */
export function requestLabel(current: TSubscriptionType, target: TSubscriptionType): 'Request Upgrade' | 'Request Downgrade' {
  return comparePlans(target, current) >= 0 ? 'Request Upgrade' : 'Request Downgrade';
}

export interface PlanChoiceState {
  current: TSubscriptionType;
  /** The plan asked for and not yet decided (null when none). */
  requested: TSubscriptionType | null;
  chosen: TSubscriptionType;
  isSubmitting: boolean;
}

/** The request button is disabled while the request runs, for the current plan, and while a request is pending. */
export function isRequestDisabled({ current, requested, chosen, isSubmitting }: PlanChoiceState): boolean {
  return isSubmitting || requested !== null || chosen === current;
}

/** With a request pending the choice is locked on the requested plan. */
export function initialChoice(current: TSubscriptionType, requested: TSubscriptionType | null): TSubscriptionType {
  return requested ?? current;
}

/** What a plan unlocks, in words, from the server's offer (the limits it enforces). */
export function planFeatures(offer: TPlanOffer | undefined): string[] {
  if (!offer) return [];
  const avatars =
    offer.maxAvatars === null ? 'Unlimited avatars' : offer.maxAvatars === 0 ? 'No avatars' : `Up to ${offer.maxAvatars} ${offer.maxAvatars === 1 ? 'avatar' : 'avatars'}`;
  return [avatars, offer.imageAvatars ? 'Image and video avatars' : 'No image or video avatars'];
}
