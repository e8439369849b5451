import { LiveFailReason, LiveMessages, type TLiveCode } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';

export class LiveRefusal extends AppError {
  constructor(
    readonly code: TLiveCode,
    status: number,
    message: string = LiveMessages[code],
  ) {
    super(status, message, LiveFailReason[code], { code });
  }
}

const REFUSAL_STATUS: Partial<Record<TLiveCode, number>> = {
  'avatar-not-found': 404,
  'token-required': 401,
  'token-invalid': 401,
  'token-expired': 401,
  'oauth-required': 401,
  'oauth-failed': 401,
  'origin-not-allowed': 403,
  'billing-refused': 402,
  'billing-unavailable': 503,
  'no-worker': 503,
  'ip-concurrency': 429,
  'session-not-found': 404,
};
export const refuse = (code: TLiveCode) => new LiveRefusal(code, REFUSAL_STATUS[code] ?? 400);
