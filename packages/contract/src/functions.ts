import { z } from 'zod';
import { ZStatus, ZId, zId, INT32_MAX } from './common.js';

/** Functions (portal spec sections 2, 3, 4, 5, 7, 8): python code avatars may call, after moderation. */
export const FunctionMessages = {
  nameRequired: 'Name is a required field.',
  codeRequired: 'Code is a required field.',
  templateRequired: 'Please select a function template to create a custom function.',
  nameInvalid: 'File Name may contain only letters, digits and underscores, must start with a letter or underscore, and may end in .py.',
  nameTooLong: 'File Name must be at most 64 characters',
  codeTooLong: 'Code must be at most 100,000 characters',
  nameTaken: 'A function with this File Name already exists.',
  idRequired: 'id is required to update or delete a function.',
  languageOnlyPython: 'Only python functions are supported.',
  tooManyItems: 'Send at most 50 functions at a time.',
  noItems: 'Send at least one function.',
  syntaxError: (line: number, column: number, detail: string) => `Syntax error on line ${line}, column ${column}: ${detail}`,
  entryMissing: (name: string) =>
    `The code must define a top-level function named ${name} (the File Name without .py), for example: def ${name}(...):`,
  loadFailed: (name: string) => `Oops! Something went wrong. We couldn't load the ${name}.`,
  deleteConfirm: (name: string) =>
    `Are you sure you want to delete "${name}"? The function will also be removed from every avatar it is linked to. This action cannot be undone.`,
  created: 'The function has been created successfully!',
  updated: 'The function has been updated successfully!',
  deleted: 'The function has been deleted successfully!',
  createFailed: 'Error creating item',
  updateFailed: 'Error updating item',
  deleteFailed: 'Error deleting item.',
  notFound: 'Function not found.',
  // Moderation.
  reasonRequired: 'A reason is required to reject a function.',
  changedSinceLoaded: 'This function was changed after you opened it. Reload the queue and review the new code.',
  approvedMail: (name: string) => `Your function "${name}" has been approved and can now be linked to your avatars.`,
  rejectedMail: (name: string) => `Your function "${name}" was not approved.`,
  notLinkable: (names: string[]) => `Only approved functions can be linked to an avatar: ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not approved.`,
  reviewLoadFailed: 'Failed to fetch functions for review',
  approved: 'The function has been approved.',
  approveConfirm: (name: string) => `Approve ${name}? Avatars it is linked to can then run this code, and its owner is told by e-mail.`,
  approvedNamed: (name: string) => `${name} has been approved; its owner has been told by e-mail. It is now listed under Approved.`,
  rejected: 'The function has been rejected.',
} as const;

export const FunctionLimits = {
  nameMax: 64,
  codeMax: 100_000,
  reasonMax: 2000,
  itemsMax: 50,
  /** Rows of the code editor. */
  editorRows: 20,
} as const;

/** approvalStatus with the spec's numbers. */
export const ApprovalStatus = { Pending: 0, Approved: 1, Rejected: 2 } as const;
export type TApprovalStatus = (typeof ApprovalStatus)[keyof typeof ApprovalStatus];
export const ZApprovalStatus = z.union([z.literal(0), z.literal(1), z.literal(2)]);
export const ApprovalStatusName: Record<TApprovalStatus, string> = { 0: 'Pending', 1: 'Approved', 2: 'Rejected' };
/** The display name of a status value; values beyond the enum are shown as Unknown. */
export const approvalStatusName = (value: number) => ApprovalStatusName[value as TApprovalStatus] ?? 'Unknown';

export const FUNCTION_LANGUAGES = ['python'] as const;
export const ZFunctionLanguage = z.enum(FUNCTION_LANGUAGES, { error: FunctionMessages.languageOnlyPython });

/** A File Name: a python identifier, optionally with .py. The function it names is the entry point. */
export const ZFunctionName = z
  .string({ error: FunctionMessages.nameRequired })
  .trim()
  .min(1, { error: FunctionMessages.nameRequired, abort: true })
  .max(FunctionLimits.nameMax, { error: FunctionMessages.nameTooLong, abort: true })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.py)?$/, { error: FunctionMessages.nameInvalid });

export const ZFunctionCode = z
  .string({ error: FunctionMessages.codeRequired })
  .max(FunctionLimits.codeMax, { error: FunctionMessages.codeTooLong, abort: true })
  .refine((v) => v.trim() !== '', { error: FunctionMessages.codeRequired });

/** The entry function a File Name refers to (without .py). */
export const entryFunctionName = (fileName: string) => fileName.trim().replace(/\.py$/, '');

/** The editor form: File Name and Code. */
export const ZFunctionForm = z.object({ name: ZFunctionName, code: ZFunctionCode });
export type TFunctionForm = z.infer<typeof ZFunctionForm>;

/** A function as the calls return it. */
export const ZFunction = z.object({
  id: z.number().int(),
  name: z.string(),
  code: z.string(),
  language: ZFunctionLanguage,
  /** The template it was started from, if any. */
  template: z.string().nullable(),
  approvalStatus: ZApprovalStatus,
  /** Why a moderator rejected it (Rejected only). */
  rejectionReason: z.string().nullable(),
  /** Incremented on every change of the function. */
  version: z.number().int(),
  createDate: z.string(),
  lastUpdateDate: z.string().nullable(),
  lastAdminUpdateDate: z.string().nullable(),
});
export type TFunction = z.infer<typeof ZFunction>;

export const ZListFunctionsResponse = z.object({ status: ZStatus, functions: z.array(ZFunction) });

const ZNewItem = z.object({
  action: z.literal('new'),
  name: ZFunctionName,
  code: ZFunctionCode,
  language: ZFunctionLanguage.default('python'),
  template: z.string().max(64).nullable().optional(),
});
const ZUpdateItem = z.object({
  action: z.literal('update'),
  id: zId(FunctionMessages.idRequired),
  name: ZFunctionName.optional(),
  code: ZFunctionCode.optional(),
  language: ZFunctionLanguage.optional(),
});
const ZDeleteItem = z.object({
  action: z.literal('delete'),
  id: zId(FunctionMessages.idRequired),
});
export const ZFunctionMutation = z.discriminatedUnion('action', [ZNewItem, ZUpdateItem, ZDeleteItem], {
  error: 'action must be new, update or delete.',
});
export type TFunctionMutation = z.input<typeof ZFunctionMutation>;
export type TFunctionMutationParsed = z.infer<typeof ZFunctionMutation>;

/** POST /api/functions {functions: [...]}: each item is applied on its own. */
export const ZMutateFunctionsRequest = z.object({
  functions: z
    .array(ZFunctionMutation, { error: FunctionMessages.noItems })
    .min(1, { error: FunctionMessages.noItems })
    .max(FunctionLimits.itemsMax, { error: FunctionMessages.tooManyItems }),
});
export type TMutateFunctionsRequest = z.input<typeof ZMutateFunctionsRequest>;

export const ZFunctionMutationResult = z.object({
  action: z.enum(['new', 'update', 'delete']),
  id: z.number().int().nullable(),
  status: ZStatus,
  errors: z.array(z.string()),
  /** The function after the change (new, update). */
  function: ZFunction.optional(),
  /** Avatars the function was removed from (delete). */
  unlinkedAvatars: z.number().int().optional(),
});
export type TFunctionMutationResult = z.infer<typeof ZFunctionMutationResult>;

/**
 * The answer: status OK when every item succeeded (HTTP 200); otherwise FAIL with every item's
 * errors, the HTTP status of the failure when all items failed the same way, else 200.
 */
export const ZMutateFunctionsResponse = z.object({
  status: ZStatus,
  results: z.array(ZFunctionMutationResult),
  errors: z.array(z.string()).optional(),
  failReason: z.number().int().optional(),
});
export type TMutateFunctionsResponse = z.infer<typeof ZMutateFunctionsResponse>;

export const ZFunctionTemplate = z.object({
  id: z.string(),
  /** What the chooser shows. */
  title: z.string(),
  description: z.string(),
  /** The File Name the editor starts with. */
  name: z.string(),
  code: z.string(),
});
export type TFunctionTemplate = z.infer<typeof ZFunctionTemplate>;
/**
 * Templates whose functions reach the internet (the weather template calls Open-Meteo): a function
 * started from one runs with network access — public addresses only, through the worker's
 * outbound guard. Every other function runs without network.
 */
export const NETWORK_FUNCTION_TEMPLATES: readonly string[] = ['weather'];
export const functionUsesNetwork = (fn: { template: string | null }) => fn.template !== null && NETWORK_FUNCTION_TEMPLATES.includes(fn.template);

export const ZFunctionTemplatesResponse = z.object({ status: ZStatus, templates: z.array(ZFunctionTemplate) });

/** A parameter of an approved function, read from its signature. */
export const ZFunctionParameter = z.object({
  name: z.string(),
  /** The python annotation as written ('str', 'int', ...), or null. */
  type: z.string().nullable(),
  required: z.boolean(),
  /** The default value as written in the code, or null. */
  default: z.string().nullable(),
});
export type TFunctionParameter = z.infer<typeof ZFunctionParameter>;

/** GET /api/realtime/functions: the caller's approved functions, ready to link or to run. */
export const ZRealtimeFunction = ZFunction.extend({
  /** The entry function (the File Name without .py). */
  entry: z.string(),
  /** Its docstring: what the function does, for the language model. */
  description: z.string(),
  parameters: z.array(ZFunctionParameter),
});
export type TRealtimeFunction = z.infer<typeof ZRealtimeFunction>;
export const ZRealtimeFunctionsResponse = z.object({ status: ZStatus, functions: z.array(ZRealtimeFunction) });

// Moderation (admin console 'Functions review').
export const ZReviewFunction = ZFunction.extend({
  userId: z.number().int(),
  ownerName: z.string(),
  ownerEmail: z.string(),
  reviewedBy: z.string().nullable(),
});
export type TReviewFunction = z.infer<typeof ZReviewFunction>;
export const ZReviewQueueQuery = z.object({
  status: z.coerce.number().pipe(ZApprovalStatus).optional(),
});
export const ZReviewQueueResponse = z.object({ status: ZStatus, functions: z.array(ZReviewFunction) });
export const ZReviewDecisionRequest = z
  .object({
    id: ZId,
    /** The version the moderator read: a function changed since is not decided. */
    version: z.coerce.number().int().min(1).max(INT32_MAX),
    decision: z.enum(['approve', 'reject'], { error: 'decision must be approve or reject.' }),
    reason: z.string().trim().max(FunctionLimits.reasonMax).optional(),
  })
  .check((ctx) => {
    if (ctx.value.decision === 'reject' && !ctx.value.reason) {
      ctx.issues.push({ code: 'custom', message: FunctionMessages.reasonRequired, path: ['reason'], input: ctx.value.reason });
    }
  });
export type TReviewDecisionRequest = z.input<typeof ZReviewDecisionRequest>;
export const ZReviewDecisionResponse = z.object({ status: ZStatus, function: ZReviewFunction });
