import { SubscriptionType } from '@persona/contract';

/** Image avatars are for PRO and ENTERPRISE subscribers. */
export const canHaveImageAvatars = (plan: number) => plan === SubscriptionType.PRO || plan === SubscriptionType.ENTERPRISE;
