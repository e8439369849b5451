import { AvatarMessages, FailReason, messageForFailReason } from '@persona/contract';
import { errorMessages, isApiError } from '../../../lib/api-client';

export type SaveFailure =
  | { kind: 'limit' }
  | { kind: 'stale' }
  | { kind: 'toast'; message: string };

/**
 * How a failed save is shown (spec section 8): AvatarCreateLimitReached and StaleRequest as
 * persistent messages, InvalidOrMissingParams as the field messages joined by commas, anything
 * else as the server's errors or the catalogue message.
 */
export function saveFailureOf(error: unknown): SaveFailure {
  if (!isApiError(error)) return { kind: 'toast', message: errorMessages(error).join(' ') };
  if (error.failReason === FailReason.AvatarCreateLimitReached) return { kind: 'limit' };
  if (error.failReason === FailReason.StaleRequest || error.status === 409) return { kind: 'stale' };
  if (error.failReason === FailReason.InvalidOrMissingParams || (error.status === 400 && error.hasErrors)) {
    return { kind: 'toast', message: messageForFailReason(FailReason.InvalidOrMissingParams, error.errors) ?? '' };
  }
  if (error.status === 403 && error.errors.includes(AvatarMessages.higherPlanRequired)) {
    return { kind: 'toast', message: AvatarMessages.higherPlanRequired };
  }
  return { kind: 'toast', message: errorMessages(error).join(' ') };
}
