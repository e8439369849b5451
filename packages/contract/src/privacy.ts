import { z } from 'zod';
import { ZId, ZStatus } from './common.js';

/**
 * Privacy of conversations (issue 30, ADR 097): per avatar, redaction at rest (what is replaced by
 * a placeholder before a conversation's text is stored or sent) and retention (how long the text
 * is kept); per visitor, erasure of everything stored of one pseudonymous visitor.
 */
export const PrivacyPaths = {
  /** GET ZGetAvatarPrivacyQuery → ZAvatarPrivacyResponse. */
  get: '/api/get_avatar_privacy',
  /** POST ZAvatarPrivacy → ZAvatarPrivacyResponse. */
  set: '/api/set_avatar_privacy',
  /** POST ZEraseVisitorRequest → ZEraseVisitorResponse: every conversation and the avatars' memory of one visitor. */
  eraseVisitor: '/api/erase_visitor',
  /**
   * POST ZRedactStoredRequest → ZRedactStoredResponse: the avatar's redaction applied to its
   * conversations stored before (a page of them a call; the caller goes on with `nextCursor`).
   */
  redactStored: '/api/redact_stored_conversations',
} as const;

export const PrivacyLimits = {
  patternsMax: 10,
  patternMaxLength: 200,
  retentionDaysMin: 1,
  retentionDaysMax: 3650,
  /** "Keep nothing but counts": the text is dropped this long after the session's end (its webhooks' bodies are made first). */
  countsOnlyGraceMs: 60_000,
  /** Stored conversations one call of redactStored looks at, at most. */
  redactStoredPage: 200,
  redactStoredCursorMax: 200,
} as const;

export const PrivacyMessages = {
  title: 'Privacy',
  intro: 'What is kept of the conversations with this avatar. Redaction applies to conversations from now on (and, when you ask, to those already stored); retention also to those already stored.',
  loadFailed: 'Failed to fetch the privacy settings.',
  saveFailed: 'Failed to save the privacy settings.',
  saved: 'Privacy settings saved.',
  chooseAvatar: 'Choose an avatar to see its privacy settings.',
  redactionTitle: 'Redaction at rest',
  redactionHelp: 'Replaced by a placeholder before anything is stored or sent: in the transcript, the summary, the search index, exports and webhooks.',
  email: 'E-mail addresses',
  phone: 'Phone numbers',
  card: 'Card numbers (Luhn-checked)',
  iban: 'IBANs',
  patterns: 'Own patterns',
  patternsHelp: `One regular expression a line, replaced by [redacted]. At most ${PrivacyLimits.patternsMax}, each up to ${PrivacyLimits.patternMaxLength} characters. They run in linear time: no backreferences, lookarounds, case-insensitive flag or counts above 16.`,
  tooManyPatterns: `At most ${PrivacyLimits.patternsMax} patterns.`,
  patternTooLong: `A pattern may have at most ${PrivacyLimits.patternMaxLength} characters.`,
  patternEmpty: 'A pattern may not be empty.',
  patternNotLinear: 'This pattern cannot run in linear time (or is not a regular expression): no backreferences, lookarounds or counts above 16.',
  patternMatchesEmpty: 'This pattern matches empty text.',
  badPattern: (n: number, why: string) => `Pattern ${n}: ${why}`,
  retentionTitle: 'Retention',
  retentionForever: 'Keep conversations',
  retentionDays: 'Delete the text after a number of days',
  retentionCounts: 'Keep nothing but counts',
  retentionHelp: 'Billing and the counts of each conversation (start, duration, turns, outcome) are always kept.',
  days: 'Days',
  badDays: `Days must be a whole number from ${PrivacyLimits.retentionDaysMin} to ${PrivacyLimits.retentionDaysMax}.`,
  save: 'Save',
  eraseVisitor: 'Erase this visitor',
  eraseVisitorConfirm: (visitor: string) =>
    `Erase everything of visitor ${visitor}? All their conversations with your avatars and what your avatars remember of them are removed for good; the call records in billing stay.`,
  erased: (sessions: number, memories: number) => `Visitor erased: ${sessions} conversation${sessions === 1 ? '' : 's'} and ${memories} memor${memories === 1 ? 'y' : 'ies'} removed.`,
  eraseFailed: 'Failed to erase the visitor.',
  visitorNotFound: 'No conversation of this visitor is stored.',
  badVisitor: 'visitor must be a visitor pseudonym (v- and 10 hex digits).',
  textRemoved: 'The text of this conversation was removed by the avatar\u2019s retention setting.',
  redactStored: 'Apply to stored conversations',
  redactStoredHelp: 'Redacts the conversations stored before, with the settings saved above: their transcripts, summaries, search index, the avatar\u2019s memories of visitors and the stored webhook bodies. It cannot be undone.',
  redactStoredConfirm: 'Redact every stored conversation of this avatar with the saved settings? The replaced text cannot be brought back.',
  redactStoredSaveFirst: 'Save the settings first: stored conversations are redacted with the saved ones.',
  redactStoredOff: 'Redaction is off for this avatar: turn something on and save first.',
  redactStoredRunning: (looked: number) => `Redacting\u2026 ${looked} conversation${looked === 1 ? '' : 's'} looked at.`,
  redactStoredDone: (looked: number, changed: number) =>
    `Done: ${changed} of ${looked} stored conversation${looked === 1 ? '' : 's'} had text to redact.`,
  redactStoredFailed: 'Failed to redact the stored conversations.',
  badCursor: 'after must be the nextCursor of the previous answer.',
} as const;

/** What is redacted: the four kinds of numbers and addresses, and the customer's own patterns. */
export const ZRedactionSettings = z
  .object({
    email: z.boolean().default(false),
    phone: z.boolean().default(false),
    card: z.boolean().default(false),
    iban: z.boolean().default(false),
    patterns: z
      .array(
        z
          .string()
          .min(1, { error: PrivacyMessages.patternEmpty })
          .max(PrivacyLimits.patternMaxLength, { error: PrivacyMessages.patternTooLong }),
      )
      .max(PrivacyLimits.patternsMax, { error: PrivacyMessages.tooManyPatterns })
      .default([]),
  })
  .strict();
export type TRedactionSettings = z.infer<typeof ZRedactionSettings>;

/** `forever` (the default), `days` (the text dropped `days` after the start), `counts` (dropped at the end). */
export const ZRetentionMode = z.enum(['forever', 'days', 'counts']);
export type TRetentionMode = z.infer<typeof ZRetentionMode>;

export const ZRetention = z
  .object({
    mode: ZRetentionMode,
    days: z.number({ error: PrivacyMessages.badDays }).int({ error: PrivacyMessages.badDays }).min(PrivacyLimits.retentionDaysMin, { error: PrivacyMessages.badDays }).max(PrivacyLimits.retentionDaysMax, { error: PrivacyMessages.badDays }).nullable().default(null),
  })
  .strict()
  .refine((r) => r.mode !== 'days' || r.days !== null, { error: PrivacyMessages.badDays, path: ['days'] });
export type TRetention = z.infer<typeof ZRetention>;

export const ZAvatarPrivacy = z
  .object({
    avatarId: ZId,
    redaction: ZRedactionSettings,
    retention: ZRetention,
  })
  .strict();
export type TAvatarPrivacy = z.infer<typeof ZAvatarPrivacy>;

export const DefaultRedaction: TRedactionSettings = { email: false, phone: false, card: false, iban: false, patterns: [] };
export const DefaultRetention: TRetention = { mode: 'forever', days: null };

export const ZGetAvatarPrivacyQuery = z.object({ avatarId: ZId }).strict();
export const ZAvatarPrivacyResponse = z.object({ status: ZStatus, privacy: ZAvatarPrivacy });
export type TAvatarPrivacyResponse = z.infer<typeof ZAvatarPrivacyResponse>;

/** The list's pseudonym of a visitor (ADR 092). */
export const ZVisitorPseudonym = z.string({ error: PrivacyMessages.badVisitor }).regex(/^v-[0-9a-f]{10}$/, { error: PrivacyMessages.badVisitor });
export const ZEraseVisitorRequest = z.object({ visitor: ZVisitorPseudonym }).strict();
export type TEraseVisitorRequest = z.infer<typeof ZEraseVisitorRequest>;
export const ZEraseVisitorResponse = z.object({ status: ZStatus, visitor: z.string(), sessions: z.number().int(), memories: z.number().int(), open: z.number().int() });
export type TEraseVisitorResponse = z.infer<typeof ZEraseVisitorResponse>;

export const ZRedactStoredRequest = z
  .object({
    avatarId: ZId,
    /** The previous answer's `nextCursor`; none for the first call. */
    after: z.string({ error: PrivacyMessages.badCursor }).min(1, { error: PrivacyMessages.badCursor }).max(PrivacyLimits.redactStoredCursorMax, { error: PrivacyMessages.badCursor }).optional(),
  })
  .strict();
export type TRedactStoredRequest = z.infer<typeof ZRedactStoredRequest>;
export const ZRedactStoredResponse = z.object({
  status: ZStatus,
  /** What this call looked at: conversations first, then the avatar's memories of visitors. */
  phase: z.enum(['conversations', 'memories']),
  /** How many it looked at, and of them changed. */
  looked: z.number().int(),
  changed: z.number().int(),
  /** Where the next call goes on; null when everything stored has been redacted. */
  nextCursor: z.string().nullable(),
});
export type TRedactStoredResponse = z.infer<typeof ZRedactStoredResponse>;
