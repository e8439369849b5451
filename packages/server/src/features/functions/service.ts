import {
  ApprovalStatus,
  FailReason,
  FunctionMessages,
  entryFunctionName,
  type TFunction,
  type TFunctionMutationParsed,
  type TFunctionMutationResult,
  type TMutateFunctionsResponse,
  type TRealtimeFunction,
  type TReviewFunction,
} from '@persona/contract';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import type { Mailer } from '../../plugins/mail.js';
import { renderMailHtml } from '../../plugins/mail.js';
import { analysePython, type PythonAnalysis } from '../../lib/python-syntax.js';
import type { FunctionRow, FunctionsRepository } from './repository.js';

export interface FunctionsServiceDeps {
  repo: FunctionsRepository;
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  now?: () => Date;
  /**
   * Parses python source off the request thread. The app gives the extraction
   * pool's (`analysePythonInPool`, knowledge/python-analysis.ts); without it, the parser runs here (tests of the service alone).
   */
  analyse?: (code: string) => Promise<PythonAnalysis>;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function present(row: FunctionRow): TFunction {
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    language: row.language,
    template: row.template,
    approvalStatus: row.approvalStatus as TFunction['approvalStatus'],
    rejectionReason: row.approvalStatus === ApprovalStatus.Rejected ? row.rejectionReason : null,
    version: row.version,
    createDate: row.createdAt.toISOString(),
    lastUpdateDate: iso(row.updatedAt),
    lastAdminUpdateDate: iso(row.adminUpdatedAt),
  };
}

/** An item that failed: its HTTP status and messages. */
class ItemError extends Error {
  constructor(
    readonly statusCode: 400 | 404,
    readonly errors: string[],
  ) {
    super(errors.join('; '));
  }
}

/** Checks the code: a real python parse, then the entry function named like the File Name. */
export async function checkFunctionCode(name: string, code: string, analyse: (code: string) => Promise<PythonAnalysis> = analysePython): Promise<string[]> {
  const analysis = await analyse(code);
  if (analysis.errors.length > 0) {
    const first = analysis.errors[0]!;
    return [FunctionMessages.syntaxError(first.line, first.column, first.detail)];
  }
  const entry = entryFunctionName(name);
  if (!analysis.functions.some((f) => f.name === entry)) return [FunctionMessages.entryMissing(entry)];
  return [];
}

export function createFunctionsService(deps: FunctionsServiceDeps) {
  const { repo, mailer, log } = deps;
  const now = deps.now ?? (() => new Date());
  const analyse = deps.analyse ?? analysePython;

  function send(message: Parameters<Mailer['send']>[0]) {
    mailer.send(message).catch((err: unknown) => log.error({ err, to: message.to }, 'mail delivery failed'));
  }

  /** Tells the moderators that a function waits for review. */
  async function notifyModerators(userId: number, fn: FunctionRow, isNew: boolean) {
    const link = `${deps.publicUrl}/react/functionsreview`;
    const paragraphs = [
      `A ${isNew ? 'new' : 'changed'} function "${fn.name}" (customer ${userId}) waits for review.`,
      'Read its code, then approve or reject it. The customer is told of your decision by e-mail.',
    ];
    for (const to of await repo.adminEmails()) {
      send({
        to,
        subject: `Function to review: ${fn.name}`,
        text: `${paragraphs.join('\n\n')}\n\nReview: ${link}\n`,
        html: renderMailHtml({ heading: 'Function to review', paragraphs, action: { label: 'Open Functions review', url: link } }),
      });
    }
  }

  async function assertNameFree(userId: number, name: string, exceptId?: number) {
    const entry = entryFunctionName(name).toLowerCase();
    const clash = (await repo.list(userId)).find((f) => f.id !== exceptId && entryFunctionName(f.name).toLowerCase() === entry);
    if (clash) throw new ItemError(400, [FunctionMessages.nameTaken]);
  }

  async function applyOne(userId: number, item: TFunctionMutationParsed): Promise<TFunctionMutationResult> {
    switch (item.action) {
      case 'new': {
        await assertNameFree(userId, item.name);
        const problems = await checkFunctionCode(item.name, item.code, analyse);
        if (problems.length > 0) throw new ItemError(400, problems);
        const row = await repo.insert({ userId, name: item.name, code: item.code, language: item.language, template: item.template ?? null });
        void notifyModerators(userId, row, true).catch((err: unknown) => log.error({ err }, 'moderator notification failed'));
        return { action: 'new', id: row.id, status: 'OK', errors: [], function: present(row) };
      }
      case 'update': {
        const existing = await repo.findOwned(userId, item.id);
        if (!existing) throw new ItemError(404, [FunctionMessages.notFound]);
        const name = item.name ?? existing.name;
        const code = item.code ?? existing.code;
        if (name !== existing.name) await assertNameFree(userId, name, existing.id);
        const problems = await checkFunctionCode(name, code, analyse);
        if (problems.length > 0) throw new ItemError(400, problems);
        // Moderators approved that code called through that entry point, not any code or any
        // function of it: a change of code, or a rename that changes the entry point, goes back to Pending.
        const isReviewNeeded = code !== existing.code || entryFunctionName(name) !== entryFunctionName(existing.name);
        const row = await repo.update(userId, existing.id, {
          name,
          code,
          updatedAt: now(),
          ...(isReviewNeeded ? { approvalStatus: ApprovalStatus.Pending, rejectionReason: null } : {}),
        });
        if (!row) throw new ItemError(404, [FunctionMessages.notFound]);
        if (isReviewNeeded) void notifyModerators(userId, row, false).catch((err: unknown) => log.error({ err }, 'moderator notification failed'));
        return { action: 'update', id: row.id, status: 'OK', errors: [], function: present(row) };
      }
      case 'delete': {
        const result = await repo.deleteAndUnlink(userId, item.id);
        if (!result) throw new ItemError(404, [FunctionMessages.notFound]);
        return { action: 'delete', id: item.id, status: 'OK', errors: [], unlinkedAvatars: result.unlinkedAvatars };
      }
    }
  }

  function presentReview(row: NonNullable<Awaited<ReturnType<FunctionsRepository['findForReview']>>>): TReviewFunction {
    return {
      ...present(row.fn),
      userId: row.fn.userId,
      ownerName: `${row.firstName} ${row.lastName}`.trim() || row.email,
      ownerEmail: row.email,
      reviewedBy: row.reviewerEmail ?? null,
    };
  }

  return {
    async list(userId: number): Promise<TFunction[]> {
      return (await repo.list(userId)).map(present);
    },

    /**
     * POST /api/functions: every item on its own. The answer and its HTTP status: 200 OK when all
     * succeeded; when all failed, FAIL with the status of the first failure; when some did, 200 FAIL.
     */
    async mutate(userId: number, items: TFunctionMutationParsed[]): Promise<{ statusCode: 200 | 400 | 404; body: TMutateFunctionsResponse }> {
      const results: TFunctionMutationResult[] = [];
      const failures: ItemError[] = [];
      for (const item of items) {
        try {
          results.push(await applyOne(userId, item));
        } catch (err) {
          if (!(err instanceof ItemError)) throw err;
          failures.push(err);
          results.push({ action: item.action, id: 'id' in item ? item.id : null, status: 'FAIL', errors: err.errors });
        }
      }
      if (failures.length === 0) return { statusCode: 200, body: { status: 'OK', results } };
      const prefix = (r: TFunctionMutationResult, i: number) => (items.length > 1 ? `Item ${i + 1} (${r.action}): ` : '');
      const errors = results.flatMap((r, i) => r.errors.map((e) => `${prefix(r, i)}${e}`));
      const statusCode = failures.length === items.length ? failures[0]!.statusCode : 200;
      return { statusCode, body: { status: 'FAIL', results, errors, ...(statusCode === 400 ? { failReason: FailReason.InvalidOrMissingParams } : {}) } };
    },

    /** GET /api/realtime/functions: the caller's approved functions, with what the runtime needs. */
    async listApproved(userId: number): Promise<TRealtimeFunction[]> {
      const rows = await repo.listApproved(userId);
      const out: TRealtimeFunction[] = [];
      for (const row of rows) {
        const entry = entryFunctionName(row.name);
        const info = (await analyse(row.code)).functions.find((f) => f.name === entry);
        out.push({ ...present(row), entry, description: info?.docstring ?? '', parameters: info?.parameters ?? [] });
      }
      return out;
    },

    /** For the avatar save: throws 400 unless every id is an approved function of the user. */
    async assertLinkable(userId: number, ids: number[]): Promise<void> {
      const unique = [...new Set(ids)];
      const rows = await repo.findOwnedMany(userId, unique);
      const approved = new Set(rows.filter((r) => r.approvalStatus === ApprovalStatus.Approved).map((r) => r.id));
      const bad = unique.filter((id) => !approved.has(id)).map((id) => rows.find((r) => r.id === id)?.name ?? `#${id}`);
      if (bad.length > 0) throw AppError.badRequest(FunctionMessages.notLinkable(bad));
    },

    // Moderation (admin only).
    async reviewQueue(status: number | undefined): Promise<TReviewFunction[]> {
      return (await repo.listForReview(status)).map(presentReview);
    },

    async decide(adminId: number, id: number, version: number, decision: 'approve' | 'reject', reason: string | undefined): Promise<TReviewFunction> {
      const existing = await repo.findForReview(id);
      if (!existing) throw AppError.notFound(FunctionMessages.notFound);
      const isApproved = decision === 'approve';
      const ok = await repo.decide(id, version, {
        approvalStatus: isApproved ? ApprovalStatus.Approved : ApprovalStatus.Rejected,
        rejectionReason: isApproved ? null : (reason ?? null),
        reviewedBy: adminId,
        adminUpdatedAt: now(),
      });
      if (!ok) throw AppError.conflict(FunctionMessages.changedSinceLoaded, FailReason.StaleRequest);
      const row = presentReview((await repo.findForReview(id))!);
      const link = `${deps.publicUrl}/react/functions`;
      const paragraphs = isApproved
        ? [`Hello ${row.ownerName},`, FunctionMessages.approvedMail(row.name)]
        : [
            `Hello ${row.ownerName},`,
            FunctionMessages.rejectedMail(row.name),
            ...(reason ? [`Reason: ${reason}`] : []),
            'Change the code and save it to send it for review again.',
          ];
      send({
        to: row.ownerEmail,
        subject: isApproved ? `Your function ${row.name} was approved` : `Your function ${row.name} was not approved`,
        text: `${paragraphs.join('\n\n')}\n\nYour functions: ${link}\n`,
        html: renderMailHtml({ heading: isApproved ? 'Function approved' : 'Function not approved', paragraphs, action: { label: 'Open your functions', url: link } }),
      });
      return row;
    },
  };
}

export type FunctionsService = ReturnType<typeof createFunctionsService>;
