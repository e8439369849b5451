import { z } from 'zod';
import { ZId, ZStatus } from './common.js';
import { LiveCode, type TLiveCode } from './live/codes.js';
import { ZPageFigures } from './page-figures.js';
import { ZLiveTurnDetail } from './live/protocol.js';

/**
 * Conversations (issue 30, ADR 092): the customer's view of their avatars' live sessions — a list
 * scoped to the caller's account, one transcript, delete; administrators read every account's at
 * the admin paths.
 */
export const ConversationPaths = {
  /** GET ZListConversationsQuery → ZListConversationsResponse. */
  list: '/api/list_conversation',
  /** GET ZGetConversationQuery → ZGetConversationResponse. */
  get: '/api/get_conversation',
  /** POST ZConversationIdRequest → ZDeleteConversationResponse (the avatar's owner only); `{ids}` deletes many (ADR 094). */
  delete: '/api/del_conversation',
  /** GET ZExportConversationsQuery → a streamed JSON or CSV file (ADR 094). */
  export: '/api/export_conversation',
  /** Administrators: every account's (same query and answer as `list`, `get`). */
  adminList: '/api/admin/list_conversation',
  adminGet: '/api/admin/get_conversation',
} as const;

export const ConversationLimits = {
  pageDefault: 25,
  pageMax: 100,
  /** The widest date range one list may ask for. */
  rangeMaxDays: 366,
  /** One delete call names at most this many conversations. */
  deleteManyMax: 100,
  /** One export streams at most this many conversations (the default when `limit` is not given). */
  exportMax: 5_000,
  /** Conversations read per keyset page while an export streams. */
  exportPage: 50,
  /** The search (`q`, ADR 098): at most this many characters, and the words after this many are ignored. */
  searchMaxChars: 200,
  searchMaxWords: 12,
} as const;

export const ConversationMessages = {
  listFailed: 'Failed to fetch conversations.',
  transcriptFailed: 'Failed to fetch this conversation.',
  notFound: 'This conversation does not exist or has been deleted.',
  stillOpen: 'This conversation is still going on. It can be deleted once it has ended.',
  deleted: 'Conversation deleted.',
  deleteFailed: 'Failed to delete the conversation.',
  deleteConfirm: 'Delete this conversation? Its transcript and figures are removed for good; the call record in billing stays.',
  badCursor: 'cursor is not a cursor this list gave.',
  badRange: 'from must be before to.',
  rangeTooLong: `A date range may span at most ${ConversationLimits.rangeMaxDays} days.`,
  badDate: 'from and to must be dates (ISO 8601, with a time zone).',
  badId: 'id must be a conversation id.',
  someStillOpen: 'Some of these conversations are still going on. They can be deleted once they have ended.',
  someNotFound: 'Some of these conversations do not exist or have been deleted.',
  deletedMany: (n: number) => `${n} conversation${n === 1 ? '' : 's'} deleted.`,
  deleteManyConfirm: (n: number) => `Delete ${n} conversation${n === 1 ? '' : 's'}? Their transcripts and figures are removed for good; the call records in billing stay.`,
  tooMany: `At most ${ConversationLimits.deleteManyMax} conversations at once.`,
  idOrIds: 'Send either id or ids.',
  exportFailed: 'Failed to export conversations.',
  searchTooLong: `Search for at most ${ConversationLimits.searchMaxChars} characters.`,
} as const;

/** Where the visitor talked: the avatar page, the page framed in a host site, the chat widget, or an own agent (agent API). */
export const ZConversationChannel = z.enum(['avatar-page', 'embed', 'chat-widget', 'agent-api']);
export type TConversationChannel = z.infer<typeof ZConversationChannel>;

/** How a conversation ended, grouped from its LiveCode (`endCode` keeps the code itself). */
export const ZConversationOutcome = z.enum(['open', 'hang-up', 'idle', 'limit', 'demo-end', 'error']);
export type TConversationOutcome = z.infer<typeof ZConversationOutcome>;

/** The end codes of each outcome; any other code ends in `error`. */
export const ConversationOutcomeCodes: Record<Exclude<TConversationOutcome, 'open' | 'error'>, readonly TLiveCode[]> = {
  'hang-up': [LiveCode.hangUp, LiveCode.sessionEnded],
  idle: [LiveCode.idleTimeout],
  limit: [LiveCode.tooManyMessages, LiveCode.billingRefused],
  'demo-end': [LiveCode.demoEnded],
};

export function outcomeOf(endCode: string | null): TConversationOutcome {
  if (endCode === null) return 'open';
  for (const [outcome, codes] of Object.entries(ConversationOutcomeCodes)) if ((codes as readonly string[]).includes(endCode)) return outcome as TConversationOutcome;
  return 'error';
}

export const ConversationLabels = {
  channel: { 'avatar-page': 'Avatar page', embed: 'Embedded', 'chat-widget': 'Chat widget', 'agent-api': 'Agent API' } satisfies Record<TConversationChannel, string>,
  outcome: { open: 'Going on', 'hang-up': 'Hung up', idle: 'Idle', limit: 'Limit', 'demo-end': 'Demo ended', error: 'Error' } satisfies Record<TConversationOutcome, string>,
} as const;

/** A live session id (the portal makes them with randomUUID). */
export const ZConversationId = z.string({ error: ConversationMessages.badId }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: ConversationMessages.badId });

/** An instant with its zone, inside 2000–2999 (no date a live session could have is outside it). */
const ZInstant = z
  .string({ error: ConversationMessages.badDate })
  .max(40, { error: ConversationMessages.badDate })
  .pipe(z.iso.datetime({ offset: true, error: ConversationMessages.badDate }))
  .transform((s) => new Date(s))
  .refine((d) => d.getUTCFullYear() >= 2000 && d.getUTCFullYear() < 3000, { error: ConversationMessages.badDate });

/** The keyset cursor: the last row's start (ms) and id, as `<ms>.<id>`. */
const ZCursor = z
  .string({ error: ConversationMessages.badCursor })
  .max(80, { error: ConversationMessages.badCursor })
  .regex(/^\d{12,14}\.[0-9a-f-]{36}$/i, { error: ConversationMessages.badCursor })
  .transform((s) => ({ startedAt: new Date(Number(s.slice(0, s.indexOf('.')))), id: s.slice(s.indexOf('.') + 1) }));

export function conversationCursor(row: { startedAt: string; id: string }): string {
  return `${Date.parse(row.startedAt)}.${row.id}`;
}

const ZQueryBoolean = z.enum(['true', 'false']).transform((s) => s === 'true');

/**
 * The search (ADR 098): words said by the visitor or the avatar, every one of them in the same
 * conversation (English stemming: "refunds" finds "refund"). Blank is no filter. Only the words
 * count — no operators, quotes or wildcards are read —, the first `searchMaxWords` of them.
 */
export const ZConversationSearch = z
  .string({ error: ConversationMessages.searchTooLong })
  .max(ConversationLimits.searchMaxChars, { error: ConversationMessages.searchTooLong })
  .transform((s) => searchWords(s) || undefined);

/** The words of a search as the server reads them: control characters and backslashes are spaces, at most `searchMaxWords`. */
export function searchWords(q: string): string {
  // eslint-disable-next-line no-control-regex
  return q.replace(/[\u0000-\u001f\u007f\\]/g, ' ').trim().split(/\s+/).filter(Boolean).slice(0, ConversationLimits.searchMaxWords).join(' ');
}

export const ZListConversationsQuery = z
  .object({
    avatarId: z.optional(ZId),
    from: ZInstant.optional(),
    to: ZInstant.optional(),
    outcome: ZConversationOutcome.optional(),
    hasErrors: ZQueryBoolean.optional(),
    q: ZConversationSearch.optional(),
    limit: z.coerce.number().int().min(1).max(ConversationLimits.pageMax).default(ConversationLimits.pageDefault),
    cursor: ZCursor.optional(),
  })
  .strict()
  .check((ctx) => {
    const { from, to } = ctx.value;
    // Runs even when a field failed: only two parsed dates are compared.
    if (from instanceof Date && to instanceof Date) {
      if (from.getTime() > to.getTime()) ctx.issues.push({ code: 'custom', message: ConversationMessages.badRange, path: ['from'], input: from });
      else if (to.getTime() - from.getTime() > ConversationLimits.rangeMaxDays * 86_400_000)
        ctx.issues.push({ code: 'custom', message: ConversationMessages.rangeTooLong, path: ['to'], input: to });
    }
  });
export type TListConversationsQuery = z.infer<typeof ZListConversationsQuery>;
/** What the portal sends (before parsing): strings, as in a query string. */
export type TListConversationsParams = Partial<Record<keyof TListConversationsQuery, string>>;

/** One conversation's facts (the list's row, and the top of its transcript). */
export const ZConversationSummary = z.object({
  id: z.string(),
  avatarId: z.number().int(),
  avatarName: z.string(),
  /** The account the avatar belongs to (administrators see every account's). */
  ownerUserId: z.number().int(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationSeconds: z.number().int().nullable(),
  channel: ZConversationChannel,
  /** The host site's origin for an embedded page. */
  hostOrigin: z.string().nullable(),
  locale: z.string().nullable(),
  /** A pseudonym of the visitor (their browser's id, or else their address), never the address itself. */
  visitor: z.string(),
  /** The visitor's address: only where the portal's operator turned it on (CONVERSATIONS_SHOW_IP; ADR 092). */
  clientIp: z.optional(z.string()),
  /** The visitor's turns stored. */
  turns: z.number().int(),
  outcome: ZConversationOutcome,
  endCode: z.string().nullable(),
  /** Median voice-to-voice latency of the spoken turns (end of speech → first avatar audio), ms. */
  voiceP50Ms: z.number().int().nullable(),
});
export type TConversationSummary = z.infer<typeof ZConversationSummary>;

/** A piece of a search snippet: `hit` marks a searched word (ADR 098). */
export const ZSnippetPart = z.object({ text: z.string(), hit: z.boolean() });
export type TSnippetPart = z.infer<typeof ZSnippetPart>;

/** With `q`: the first turn of the conversation that holds every searched word, as a short snippet. */
export const ZConversationMatch = z.object({
  /** Index in the transcript's turns. */
  turn: z.number().int(),
  role: z.enum(['visitor', 'avatar']),
  snippet: z.array(ZSnippetPart),
});
export type TConversationMatch = z.infer<typeof ZConversationMatch>;

/** A row of the list: the facts, and with a search the turn that matched (null when the words are spread over several turns). */
export const ZConversationListItem = ZConversationSummary.extend({ match: ZConversationMatch.nullable().optional() });
export type TConversationListItem = z.infer<typeof ZConversationListItem>;

export const ZListConversationsResponse = z.object({
  status: ZStatus,
  conversations: z.array(ZConversationListItem),
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: z.string().nullable(),
});
export type TListConversationsResponse = z.infer<typeof ZListConversationsResponse>;

/** `q` (ADR 098): the response names the turns holding every searched word, with the words marked. */
export const ZGetConversationQuery = z.object({ id: ZConversationId, q: ZConversationSearch.optional() }).strict();
/** `{id}` (one) or `{ids}` (many, ADR 094: all of them deleted, or none when one is open or not the caller's). */
export const ZConversationIdRequest = z
  .object({
    id: ZConversationId.optional(),
    ids: z.array(ZConversationId).min(1, { error: ConversationMessages.idOrIds }).max(ConversationLimits.deleteManyMax, { error: ConversationMessages.tooMany }).optional(),
  })
  .strict()
  .refine((v) => (v.id === undefined) !== (v.ids === undefined), { error: ConversationMessages.idOrIds });
export type TConversationIdRequest = z.infer<typeof ZConversationIdRequest>;

export const ZExportFormat = z.enum(['json', 'csv']);
export type TExportFormat = z.infer<typeof ZExportFormat>;

/**
 * GET /api/export_conversation (ADR 094): one conversation (`id`) or the list's filters; streamed,
 * newest first, at most `limit` conversations (a JSON export names the cursor of the rest).
 */
export const ZExportConversationsQuery = z
  .object({
    format: ZExportFormat.default('json'),
    id: ZConversationId.optional(),
    avatarId: z.optional(ZId),
    from: ZInstant.optional(),
    to: ZInstant.optional(),
    outcome: ZConversationOutcome.optional(),
    hasErrors: ZQueryBoolean.optional(),
    q: ZConversationSearch.optional(),
    limit: z.coerce.number().int().min(1).max(ConversationLimits.exportMax).default(ConversationLimits.exportMax),
    cursor: ZCursor.optional(),
  })
  .strict()
  .check((ctx) => {
    const { from, to } = ctx.value;
    if (from instanceof Date && to instanceof Date) {
      if (from.getTime() > to.getTime()) ctx.issues.push({ code: 'custom', message: ConversationMessages.badRange, path: ['from'], input: from });
      else if (to.getTime() - from.getTime() > ConversationLimits.rangeMaxDays * 86_400_000)
        ctx.issues.push({ code: 'custom', message: ConversationMessages.rangeTooLong, path: ['to'], input: to });
    }
  });
export type TExportConversationsQuery = z.infer<typeof ZExportConversationsQuery>;
export type TExportConversationsParams = Partial<Record<keyof TExportConversationsQuery, string>>;

/** The CSV export's columns: one row per turn (ADR 094; the detail's columns ADR 102). */
export const ConversationCsvColumns = [
  'session_id',
  'avatar_id',
  'avatar_name',
  'started_at',
  'ended_at',
  'outcome',
  'channel',
  'visitor',
  'turn_at',
  'speaker',
  'text',
  'interrupted',
  'end_of_speech_ms',
  'stt_ms',
  'first_token_ms',
  'first_audio_ms',
  'voice_to_voice_ms',
  // The turn's detail (ADR 102), flattened: an interrupted answer's heard ms and whole length;
  // functions `name(arguments) → result` (or `→ FAILED: error`), passage titles, errors
  // `provider:code (phase)` and the recogniser's corrections, each list joined with " | ".
  'heard_ms',
  'full_chars',
  'functions',
  'passages',
  'errors',
  'corrections',
] as const;

/** One spoken turn's latencies (ms), as the worker measured them. */
export const ZConversationTurnLatency = z.object({
  endOfUtteranceMs: z.number().nullable(),
  sttMs: z.number().nullable(),
  llmFirstTokenMs: z.number().nullable(),
  ttsFirstByteMs: z.number().nullable(),
  endToEndMs: z.number().nullable(),
});
export type TConversationTurnLatency = z.infer<typeof ZConversationTurnLatency>;

export const ZConversationTurn = z.object({
  role: z.enum(['visitor', 'avatar']),
  text: z.string(),
  /** ISO instant. */
  at: z.string(),
  /** An avatar answer the visitor cut off: `text` is what was heard. */
  interrupted: z.boolean(),
  /** A visitor's spoken turn and the answer's latencies; null for typed turns and avatar lines. */
  latency: ZConversationTurnLatency.nullable(),
  /** Corrections, how much of an interrupted answer was heard, function calls, passages, provider errors (ADR 102). */
  detail: z.optional(ZLiveTurnDetail),
});
export type TConversationTurn = z.infer<typeof ZConversationTurn>;

export const ZConversationDetail = ZConversationSummary.extend({
  turnList: z.array(ZConversationTurn),
  /** With `q` (ADR 098): each turn that holds every searched word, its text cut in parts (`hit` on the words). */
  matches: z.array(z.object({ turn: z.number().int(), parts: z.array(ZSnippetPart) })).optional(),
  /** The caller owns it (only the owner deletes; an administrator reads every account's). */
  canDelete: z.boolean(),
  /** The avatar's retention removed its text (ADR 097): the facts and counts are all that is left. */
  textRemoved: z.boolean(),
  /** The avatar's model's summary of the ended session (ADR 099); null when none. */
  summary: z.string().nullable(),
  /** What the visitor's page measured (ADR 099); null when it reported nothing. */
  pageFigures: z.nullable(ZPageFigures),
});
export type TConversationDetail = z.infer<typeof ZConversationDetail>;

export const ZGetConversationResponse = z.object({ status: ZStatus, conversation: ZConversationDetail });
/** `id` for one; `ids` (every one deleted) for many. */
export const ZDeleteConversationResponse = z.object({ status: ZStatus, id: z.string().optional(), ids: z.array(z.string()).optional() });
