/** The error catalogue of the spec (portal.md section 8): numeric failReason codes. */
export const FailReason = {
  FallbackError: -1,
  Nil: 0,
  RoomFull: 1,
  ServerError: 2,
  Unknown: 3,
  NetworkError: 4,
  WebSocketError: 5,
  AuthenticationFailed: 6,
  InvalidOrMissingParams: 7,
  BinarySocketError: 8,
  RoomNotFoundError: 9,
  AvatarCreateLimitReached: 10,
  UsageLimitExceeded: 11,
  MaxConcurrencyReached: 12,
  InvalidToken: 13,
  RequestFail: 14,
  StaleRequest: 15,
  InvalidAPIKey: 16,
  MaxConcurrencyPerIPReached: 17,
} as const;
export type TFailReason = (typeof FailReason)[keyof typeof FailReason];

export const ErrorMessages = {
  serverError:
    'Oops! Something went wrong on our end. Please try again later or contact support if the issue persists.',
  networkError:
    'We are having trouble connecting. Please check your internet connection and try again.',
  unknown: 'An unexpected error occurred. Please try again later or contact support.',
  authenticationFailed:
    'Authentication failed. Please re-login and try again. If the issue persists, contact support',
  invalidOrMissingParams: 'A required property is missing or invalid.',
  staleRequest: 'Avatar data is outdated. It may have been updated from another instance.',
  fallback: 'An unexpected error occurred. Please try again.',
  invalidToken: 'The access token is invalid or has expired.',
  requestFail: 'The request could not be completed. Please try again.',
  invalidApiKey: 'The application key is invalid.',
  maxConcurrencyPerIp: 'Too many sessions from your network are active. Please try again later.',
  avatarCreateLimitReached:
    'You have reached the maximum number of avatars for your plan. Please upgrade to create more.',
  notFound: 'Not found.',
  forbidden: 'You do not have permission to do this.',
  tooManyRequests: 'Too many attempts. Please wait and try again later.',
  serviceUnavailable: 'The service is briefly unavailable. Please try again.',
} as const;

/** Message shown for a failReason in the browser (null: the spec shows none). */
export function messageForFailReason(code: number | undefined, errors: string[] = []): string | null {
  switch (code) {
    case FailReason.ServerError:
      return ErrorMessages.serverError;
    case FailReason.NetworkError:
      return ErrorMessages.networkError;
    case FailReason.Unknown:
      return ErrorMessages.unknown;
    case FailReason.AuthenticationFailed:
      return ErrorMessages.authenticationFailed;
    case FailReason.InvalidOrMissingParams:
      return errors.length > 0 ? errors.join(', ') : ErrorMessages.invalidOrMissingParams;
    case FailReason.AvatarCreateLimitReached:
      return ErrorMessages.avatarCreateLimitReached;
    case FailReason.StaleRequest:
      return ErrorMessages.staleRequest;
    case FailReason.InvalidToken:
      return ErrorMessages.invalidToken;
    case FailReason.RequestFail:
      return ErrorMessages.requestFail;
    case FailReason.InvalidAPIKey:
      return ErrorMessages.invalidApiKey;
    case FailReason.MaxConcurrencyPerIPReached:
      return ErrorMessages.maxConcurrencyPerIp;
    case FailReason.Nil:
    case FailReason.FallbackError:
      return ErrorMessages.fallback;
    default:
      return null;
  }
}
