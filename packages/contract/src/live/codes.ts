// zod/mini: the avatar page imports the live contract and must stay small (≤ 60 KB gz).
import { z } from 'zod/mini';
import { FailReason } from '../errors.js';

/**
 * Why a live session could not start, or why it ended. Each code has its own text on the avatar
 * page, is posted to the host page (`error {code}`), and maps to the spec's numeric failReason
 * where one fits (the admission answer carries both).
 */
export const LiveCode = {
  /** Admission refusals. */
  avatarNotFound: 'avatar-not-found',
  tokenRequired: 'token-required',
  tokenInvalid: 'token-invalid',
  tokenExpired: 'token-expired',
  oauthRequired: 'oauth-required',
  oauthFailed: 'oauth-failed',
  originNotAllowed: 'origin-not-allowed',
  billingRefused: 'billing-refused',
  billingUnavailable: 'billing-unavailable',
  noWorker: 'no-worker',
  ipConcurrency: 'ip-concurrency',
  rateLimited: 'rate-limited',
  /** Worker-side refusals of the WebSocket hello. */
  ticketInvalid: 'ticket-invalid',
  sessionNotFound: 'session-not-found',
  /** Endings. */
  idleTimeout: 'idle-timeout',
  demoEnded: 'demo-ended',
  hangUp: 'hang-up',
  sessionEnded: 'session-ended',
  workerLost: 'worker-lost',
  /** The visitor kept sending messages over the rate (LiveRates.maxRefusedMessages): ended, not resumable. */
  tooManyMessages: 'too-many-messages',
  /** Non-fatal. */
  dailyLimitEcho: 'daily-limit-echo',
  providerError: 'provider-error',
  /** The avatar's voice (TTS) failed: the answer goes on in the chat. */
  voiceError: 'voice-error',
  /** The speech recogniser (STT) failed: say it again, or type. */
  listeningError: 'listening-error',
  platformNotConfigured: 'platform-not-configured',
  /** A message over the rate (LiveRates): not answered; the notice names its id. */
  tooFast: 'too-fast',
  /** A turn with functions waits for the function sandbox to start (bounded). */
  toolsStarting: 'tools-starting',
  /** Bring your own agent: no agent is connected for the avatar, or it did not join in time. */
  agentNotConnected: 'agent-not-connected',
  badFrame: 'bad-frame',
  serverError: 'server-error',
} as const;
export type TLiveCode = (typeof LiveCode)[keyof typeof LiveCode];
export const ZLiveCode = z.enum(Object.values(LiveCode) as [TLiveCode, ...TLiveCode[]]);

/** What the visitor reads on the avatar page for each code. */
export const LiveMessages: Record<TLiveCode, string> = {
  'avatar-not-found': 'This avatar does not exist or has been deleted.',
  'token-required': 'This avatar is protected. The page that shows it must provide an access token.',
  'token-invalid': 'The access token is not valid for this avatar.',
  'token-expired': 'The access token has expired. Reload the page to get a new one.',
  'oauth-required': 'Please sign in to talk to this avatar.',
  'oauth-failed': 'Sign-in did not succeed. Please try again.',
  'origin-not-allowed': 'This avatar cannot be shown on this website.',
  'billing-refused': 'Access to this avatar was refused by its billing service.',
  'billing-unavailable': 'The billing service of this avatar could not be reached. Please try again later.',
  'no-worker': 'All avatar servers are busy. Please try again in a minute.',
  'ip-concurrency': 'Too many conversations are open from your network. Please close one and try again.',
  'rate-limited': 'Too many attempts. Please wait a moment and try again.',
  'ticket-invalid': 'The connection to the avatar server was refused. Please reconnect.',
  'session-not-found': 'This conversation has ended. Please connect again.',
  'idle-timeout': 'The conversation ended because nothing was said for a while.',
  'demo-ended': 'The demo time of this avatar is over.',
  'hang-up': 'The conversation has ended.',
  'session-ended': 'The conversation has ended.',
  'worker-lost': 'The connection to the avatar server was lost. Reconnecting…',
  'too-many-messages': 'The conversation was ended because too many messages were sent too quickly.',
  'daily-limit-echo': 'The daily conversation limit was reached: the avatar will only repeat what you say.',
  'provider-error': 'Sorry, I could not answer that just now. Please try again.',
  'voice-error': 'Sorry, my voice dropped out. My answer goes on here in the chat.',
  'listening-error': 'Sorry, I could not hear that. Please say it again, or type your message.',
  'platform-not-configured': 'This avatar\u2019s language model is not configured on this server yet.',
  'too-fast': 'You are sending messages faster than the avatar can answer. Please wait a moment before sending the next one.',
  'tools-starting': 'One moment, the avatar is getting its tools ready\u2026',
  'agent-not-connected': 'No agent is connected to this avatar right now. Please try again in a moment.',
  'bad-frame': 'The avatar server could not read a message from this page.',
  'server-error': 'Oops! Something went wrong on our end. Please try again later or contact support if the issue persists.',
};

/** The spec's numeric failReason for each admission refusal (admission answers carry both). */
export const LiveFailReason: Partial<Record<TLiveCode, number>> = {
  'avatar-not-found': FailReason.RoomNotFoundError,
  'token-required': FailReason.InvalidToken,
  'token-invalid': FailReason.InvalidToken,
  'token-expired': FailReason.InvalidToken,
  'oauth-required': FailReason.AuthenticationFailed,
  'oauth-failed': FailReason.AuthenticationFailed,
  'origin-not-allowed': FailReason.AuthenticationFailed,
  'billing-refused': FailReason.UsageLimitExceeded,
  'billing-unavailable': FailReason.RequestFail,
  'no-worker': FailReason.MaxConcurrencyReached,
  'ip-concurrency': FailReason.MaxConcurrencyPerIPReached,
  'rate-limited': FailReason.RequestFail,
  'ticket-invalid': FailReason.InvalidToken,
  'session-not-found': FailReason.RoomNotFoundError,
  'server-error': FailReason.ServerError,
};
