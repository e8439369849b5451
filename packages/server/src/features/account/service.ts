import {
  AccountMessages,
  DefaultVoices,
  EnginesPerMode,
  GooglePreferredSttLanguages,
  InterruptOptions,
  Languages,
  LlmBaseUrls,
  RealtimeBaseUrls,
  RealtimeModels,
  RealtimeVadDefaults,
  RealtimeVoices,
  SimpleModeLlmModels,
  SttDefaults,
  SttProviderList,
  TtsProviderList,
  VadDefaults,
  FailReason,
  SubscriptionTypeName,
  Plans,
  comparePlans,
  hasImageAvatars,
  type TPlanOffer,
  type TAccountDetails,
  type TAccountStatsResponse,
  type TPlanRequest,
  type TSubscriptionType,
} from '@persona/contract';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import type { Mailer } from '../../plugins/mail.js';
import { renderMailHtml } from '../../plugins/mail.js';
import type { AccountRepository } from './repository.js';
import type { BillingRepository } from './billing-repository.js';

export interface AccountServiceDeps {
  repo: AccountRepository;
  billing: BillingRepository;
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  /** CONTACT_EMAIL: where customers send an image avatar's photo. */
  contactEmail: string;
  planMaxAvatars: Record<string, number | null>;
  now?: () => Date;
  /** The account's encryption keys (id, name, defaultKey), when that feature is present. */
  encKeys?: (userId: number) => Promise<{ id: number; name: string; defaultKey: boolean }[]>;
}

/** The provider/model lists of the creator's Brain tab. */
const creatorLists = {
  sttProviders: SttProviderList,
  ttsProviders: TtsProviderList,
  llmBaseUrls: LlmBaseUrls,
  realtimeBaseUrls: RealtimeBaseUrls,
  realtimeVoices: RealtimeVoices,
  realtimeModels: RealtimeModels,
  singleModeLlmModels: SimpleModeLlmModels,
  defaultVoices: DefaultVoices,
  googlePreferredSttLanguages: GooglePreferredSttLanguages,
  interruptOptions: InterruptOptions,
  vadOptions: VadDefaults,
  realtimeVadOptions: RealtimeVadDefaults,
  sttDefaults: SttDefaults,
  agentPipelineList: EnginesPerMode,
};

const planName = (code: number) => SubscriptionTypeName[code as TSubscriptionType] ?? 'NONE';
const minutes = (seconds: number) => Math.round((seconds / 60) * 100) / 100;

export function createAccountService(deps: AccountServiceDeps) {
  const { repo, billing, mailer, log } = deps;
  const now = deps.now ?? (() => new Date());

  function maxAvatarsFor(subType: number): number | null {
    const limit = deps.planMaxAvatars[planName(subType)];
    return limit === undefined ? 0 : limit;
  }

  /** Every plan with what it unlocks: the limits the avatar and image-avatar services enforce. */
  const planOffers = (): TPlanOffer[] =>
    Plans.map((p) => ({ code: p.code, name: p.name, priceUsdMonth: p.priceUsdMonth, maxAvatars: maxAvatarsFor(p.code), imageAvatars: hasImageAvatars(p.code) }));

  function presentRequest(row: NonNullable<Awaited<ReturnType<AccountRepository['findRequest']>>>): TPlanRequest {
    const r = row.request;
    return {
      id: r.id,
      userId: r.userId,
      userName: `${row.firstName} ${row.lastName}`.trim() || row.email,
      email: row.email,
      currentSubType: r.currentSubType as TSubscriptionType,
      requestedSubType: r.requestedSubType as TSubscriptionType,
      status: r.status,
      created: r.createdAt.toISOString(),
      decided: r.decidedAt?.toISOString() ?? null,
      decidedBy: row.deciderEmail ?? null,
      reason: r.reason ?? null,
    };
  }

  function send(message: Parameters<Mailer['send']>[0]) {
    mailer.send(message).catch((err: unknown) => log.error({ err, to: message.to }, 'mail delivery failed'));
  }

  return {
    maxAvatarsFor,

    async getAccountDetails(userId: number): Promise<TAccountDetails> {
      // Independent reads, in parallel (a PostgreSQL pool runs them at once).
      const [row, encKeys] = await Promise.all([repo.findUserWithPending(userId), deps.encKeys ? deps.encKeys(userId) : Promise.resolve([])]);
      if (!row) throw AppError.unauthorized();
      const { user, pendingSubType, avatarCount } = row;
      return {
        Id: user.id,
        Name: `${user.firstName} ${user.lastName}`.trim(),
        Email: user.email,
        Status: user.status,
        'Create Date': user.createdAt.toISOString(),
        'Last Updated': user.updatedAt.toISOString(),
        'Subscribed Since': user.subscribedAt.toISOString(),
        userType: user.userType,
        requestedSubType: (pendingSubType as TSubscriptionType | null) ?? null,
        licenses: { webgl: { subscriptionType: user.subscriptionType as TSubscriptionType } },
        maxAvatars: maxAvatarsFor(user.subscriptionType),
        avatarCount,
        plans: planOffers(),
        contactEmail: deps.contactEmail,
        'Assigned Pools': 'default',
        customAvatarsJsonUrl: '/api/custom_avatars',
        defaultAvatarsList: '/catalog/avatars.json',
        defaultRealtimeSettingsUrl: '/catalog/realtime-settings.json',
        defaultEnvsListUrl: '/catalog/environments.json',
        encKeys,
        languages: [...Languages],
        lists: creatorLists,
      };
    },

    /** Usage of the caller's own avatars for calls that started in [startDate, endDate]. */
    async getStats(userId: number, startDate: number, endDate: number): Promise<TAccountStatsResponse> {
      // The end date is inclusive to the millisecond the browser sends.
      const usage = await billing.usageByAvatar(userId, new Date(startDate), new Date(endDate + 1));
      const names = await repo.avatarNames(userId);
      const billingData = usage
        .map((u) => ({
          avatarName: names.get(u.avatarId) ?? u.avatarName,
          avatarId: u.avatarId,
          totalCallDuration: minutes(u.totalSeconds),
          totalCallCount: u.callCount,
        }))
        .sort((a, b) => b.totalCallDuration - a.totalCallDuration || a.avatarId - b.avatarId);
      const totalSeconds = usage.reduce((sum, u) => sum + u.totalSeconds, 0);
      return {
        status: 'OK',
        billingData,
        cummulativeData: {
          totalCallDuration: minutes(totalSeconds),
          totalCallCount: usage.reduce((sum, u) => sum + u.callCount, 0),
        },
      };
    },

    async requestPlanChange(userId: number, subType: TSubscriptionType, dhType: number): Promise<TPlanRequest> {
      const user = await repo.findUser(userId);
      if (!user) throw AppError.unauthorized();
      if (user.subscriptionType === subType) throw new AppError(400, AccountMessages.samePlan, FailReason.InvalidOrMissingParams);
      if (await repo.pendingRequest(userId)) throw new AppError(409, AccountMessages.requestPending);
      const inserted = await repo.insertRequest({ userId, currentSubType: user.subscriptionType, requestedSubType: subType, dhType });
      const row = (await repo.findRequest(inserted.id))!;
      const request = presentRequest(row);
      const direction = comparePlans(subType, user.subscriptionType as TSubscriptionType) >= 0 ? 'upgrade' : 'downgrade';
      const link = `${deps.publicUrl}/react/requests?id=${request.id}`;
      const paragraphs = [
        `${request.userName} <${user.email}> (customer ${user.id}) asks to ${direction} from ${planName(user.subscriptionType)} to ${planName(subType)}.`,
        'Open the request to confirm or decline it. The customer is told of your decision by e-mail.',
      ];
      for (const to of await repo.adminEmails()) {
        send({
          to,
          subject: `Plan ${direction} request: ${user.email} → ${planName(subType)}`,
          text: `${paragraphs.join('\n\n')}\n\nConfirm or decline: ${link}\n`,
          html: renderMailHtml({ heading: `Plan ${direction} request`, paragraphs, action: { label: 'Confirm or decline', url: link } }),
        });
      }
      return request;
    },

    /** The caller withdraws their own pending request (nobody else's: there is no id to probe). */
    async withdrawPlanRequest(userId: number): Promise<TPlanRequest> {
      const id = await repo.withdrawPendingRequest(userId, now());
      if (id === null) throw new AppError(409, AccountMessages.noPendingRequest);
      return presentRequest((await repo.findRequest(id))!);
    },

    async listRequests(status?: TPlanRequest['status']): Promise<TPlanRequest[]> {
      return (await repo.listRequests(status)).map(presentRequest);
    },

    async decideRequest(adminId: number, requestId: number, decision: 'confirm' | 'decline', reason?: string): Promise<TPlanRequest> {
      const existing = await repo.findRequest(requestId);
      if (!existing) throw AppError.notFound();
      const ok = await repo.decideRequest(requestId, decision === 'confirm' ? 'CONFIRMED' : 'DECLINED', adminId, reason || null, now());
      if (!ok) throw AppError.conflict('This request has already been decided.');
      const row = (await repo.findRequest(requestId))!;
      const request = presentRequest(row);
      const from = planName(request.currentSubType);
      const to = planName(request.requestedSubType);
      const paragraphs =
        decision === 'confirm'
          ? [`Hello ${request.userName},`, `Your plan has been changed from ${from} to ${to}. Thank you!`]
          : [
              `Hello ${request.userName},`,
              `Your request to change your plan from ${from} to ${to} was declined.`,
              ...(reason ? [`Reason: ${reason}`] : []),
              'You can send a new request from your account page.',
            ];
      const accountLink = `${deps.publicUrl}/react/account`;
      send({
        to: request.email,
        subject: decision === 'confirm' ? `Your Persona Studio plan is now ${to}` : 'Your plan change request was declined',
        text: `${paragraphs.join('\n\n')}\n\nYour account: ${accountLink}\n`,
        html: renderMailHtml({ heading: decision === 'confirm' ? 'Plan changed' : 'Plan request declined', paragraphs, action: { label: 'Open your account', url: accountLink } }),
      });
      return request;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
