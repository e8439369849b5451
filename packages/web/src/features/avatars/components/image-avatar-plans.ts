import { hasImageAvatars } from '@persona/contract';

/** Image avatars are for PRO and ENTERPRISE subscribers: the rule the server enforces. */
export const canHaveImageAvatars = (plan: number) => hasImageAvatars(plan);
