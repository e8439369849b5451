import {
  AvatarLimits,
  AvatarMessages,
  DhType,
  DhTypeName,
  ErrorMessages,
  EnginesPerMode,
  FailReason,
  NlpEngine,
  NlpEngineName,
  SubscriptionType,
  AvatarMedia,
  AvatarMediaMessages,
  ZAvatar,
  ZAvatarInput,
  ZAvatarModelReport,
  type TAvatar,
  type TAvatarModelReport,
  type TAvatarInputParsed,
  type TDhType,
  type TMediaDetails,
  type TNlpEngine,
  type TSetupMode,
  ZId,
  readAvatarConfig,
  secretsNeededAgain,
  type TAvatarConfig,
} from '@persona/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import { jpegSize } from '../../lib/file-type.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Storage, StoredFile } from '../../plugins/storage.js';
import type { AvatarRow, AvatarsRepository, MediaRow } from './repository.js';
import { agentToCheck, agentVerdictErrors, engineErrors, touchesEngine, type ElevenLabsAgentVerdict } from './engine-validation.js';
import { maskSecrets, openSecrets, sealSecrets } from './secrets.js';
import { speechErrors } from './speech-validation.js';
import { outboundUrlErrors } from './url-guard.js';

export interface AvatarServiceDeps {
  repo: AvatarsRepository;
  box: SecretBox;
  storage: Storage;
  log: FastifyBaseLogger;
  publicUrl: string;
  maxAvatarsFor: (subType: number) => number | null;
  onlineCount: (avatarId: number) => Promise<number>;
  onlineCounts: (avatarIds: number[]) => Promise<Map<number, number>>;
  /** What the avatar links to in other features (functions, encryption keys, OAuth configs). */
  links: AvatarLinks;
  /** ALLOW_PRIVATE_URLS: may the URLs the avatar has called (LLM, REST, realtime, billing…) be private addresses. */
  allowPrivateUrls: boolean;
  /** The Brain tab's provider checks, asked again by a save (the provider look-ups). */
  brainChecks: AvatarBrainChecks;
}

export interface AvatarBrainChecks {
  /** ElevenLabs' verdict on a Conversational AI agent, with this key (none: the public check only). */
  elevenLabsAgent(input: { agentId: string; connectionType: 'webrtc' | 'websocket'; apiKey?: string }): Promise<ElevenLabsAgentVerdict>;
}

export interface AvatarLinks {
  /** Throws 400 unless every id is an approved function of the user. */
  assertFunctionsLinkable(userId: number, ids: number[]): Promise<void>;
  findEncKey(userId: number, id: number): Promise<{ id: number; name: string; defaultKey: boolean } | undefined>;
  /** Throws (404) unless the OAuth config is the user's. */
  assertOAuthApp(userId: number, id: number): Promise<void>;
  /** The ids among these that are not knowledge collections of the user. */
  foreignCollectionIds(userId: number, ids: number[]): Promise<number[]>;
  /** A token the portal mints for its own Connect link and preview, good while the caller's session is. */
  mintToken(ownerId: number, avatarId: number, sessionId: number): Promise<string>;
}

export interface Caller {
  userId: number;
  adminProxy: boolean;
  /** The caller's session: the preview and Connect tokens in the answers end with it. */
  sessionId: number;
}

export interface UploadedMedia extends StoredFile {
  field: 'backgroundImage' | 'scene' | 'avatarPhoto' | 'avatarModel';
  name: string;
  /** Own avatar models: what the upload check found. */
  model?: TAvatarModelReport;
}

/** Columns that are real columns; everything else of the avatar lives in `config`. */
const COLUMN_FIELDS = ['id', 'version', 'name', 'nlpEngine', 'dhType', 'setupMode', 'deleteMediaIds', 'transferConfigHosting', 'avatarPhotoBase64', 'avatarPhoto'] as const;
/** Only an administrator acting for the customer (admin proxy) may change these. */
const ADMIN_PROXY_ONLY = ['realtime', 'sendChatHistory', 'handleSttResponse', 'idleTimeout', 'permissions'] as const;
const ADMIN_PROXY_DEFAULTS: Record<(typeof ADMIN_PROXY_ONLY)[number], unknown> = {
  realtime: false,
  sendChatHistory: false,
  handleSttResponse: false,
  idleTimeout: 300,
  permissions: 0,
};
const LEGACY_COMPOSITE = [NlpEngine.CustomChatGPTPrompt, NlpEngine.CustomChatGPTAssistant] as TNlpEngine[];

const isUrl = (v: string) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

export function createAvatarService(deps: AvatarServiceDeps) {
  const { repo, box, storage, log } = deps;
  const hostedAvatarConfig = (id: number) => `${deps.publicUrl}/config/avatars/${id}.json`;
  const hostedClientConfig = (id: number) => `${deps.publicUrl}/config/clients/${id}.json`;

  /** A config URL outside the product's own locations is self-hosted by the customer. */
  const isProductHosted = (url: string | undefined) =>
    !url || url.startsWith(`${deps.publicUrl}/config/`) || url.startsWith(`${deps.publicUrl}/catalog/`) || url.startsWith('/config/') || url.startsWith('/catalog/');

  function mediaDetails(media: MediaRow[]): TMediaDetails {
    const item = (m: MediaRow) => ({ id: m.id, url: storage.url(m.storageKey), name: m.name, type: m.mime, size: m.size });
    const report = (m: MediaRow) => {
      const parsed = ZAvatarModelReport.safeParse(m.meta);
      return parsed.success ? { ...item(m), model: parsed.data } : item(m);
    };
    return {
      backgroundImage: media.filter((m) => m.kind === 'backgroundImage' || m.kind === 'backgroundVideo').map(item),
      scene: media.filter((m) => m.kind === 'scene').map(item),
      avatarModel: media.filter((m) => m.kind === 'avatarModel').map(report),
    };
  }

  async function present(caller: Caller, row: AvatarRow, media: MediaRow[], usersCount: number): Promise<TAvatar> {
    const config = maskSecrets(row.config, box);
    // Token-based access: an avatar with an encryption key opens from the portal with a token.
    const token = readAvatarConfig(config).access.encKeyId ? await deps.links.mintToken(row.userId, row.id, caller.sessionId) : undefined;
    // Parsed with the contract's avatar: stored fields of the wrong type are left out, not sent.
    return ZAvatar.parse({
      ...config,
      token,
      id: row.id,
      version: row.version,
      name: row.name,
      nlpEngine: row.nlpEngine as TNlpEngine,
      nlpEngineName: NlpEngineName[row.nlpEngine as TNlpEngine] ?? 'Unknown',
      dhType: row.dhType as TDhType,
      dhTypeName: DhTypeName[row.dhType as TDhType] ?? 'Unknown',
      setupMode: row.setupMode as TSetupMode,
      usersCount,
      created: row.createdAt.toISOString(),
      updated: row.updatedAt.toISOString(),
      mediaDetails: mediaDetails(media),
      avatarPhotoURL: row.photoUrl ?? undefined,
      accessLink: `${deps.publicUrl}/avatar/${row.id}`,
    });
  }

  function validate(input: TAvatarInputParsed, isCreate: boolean, plan: number): string[] {
    const errors: string[] = [];
    const engines: TNlpEngine[] = [...EnginesPerMode[input.setupMode], ...(input.setupMode === 1 ? LEGACY_COMPOSITE : [])];
    if (!isCreate && !engines.includes(input.nlpEngine)) errors.push('Avatar Engine is not available in the selected mode');
    if (input.oauthEnabled === 1) {
      if (input.partnerOauthAppId === undefined || input.partnerOauthAppId === null || input.partnerOauthAppId === '') errors.push(AvatarMessages.oauthAppRequired);
      else if (!ZId.safeParse(input.partnerOauthAppId).success) errors.push(AvatarMessages.oauthAppNumeric);
    }
    if (input.billingAuthURL) {
      if (!isUrl(input.billingAuthURL)) errors.push(AvatarMessages.billingAuthUrl);
      else if (!input.billingAuthHeader) errors.push(AvatarMessages.billingHeaderRequired);
    }
    for (const url of [input.avatarConfigURL, input.clientConfigURL]) {
      if (url && !url.startsWith('/') && !isUrl(url)) errors.push(AvatarMessages.configUrl);
    }
    for (const json of [input.avatarJson, input.clientJson]) {
      if (json !== undefined && json !== '') {
        try {
          const parsed: unknown = JSON.parse(json);
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) errors.push(AvatarMessages.jsonInvalid);
        } catch {
          errors.push(AvatarMessages.jsonInvalid);
        }
      }
    }
    if (isCreate && !input.avatarConfigURL && !parentOf(input.avatarJson)) errors.push(AvatarMessages.selectionRequired);
    errors.push(...speechErrors(input));
    if (input.dhType === DhType.Video) errors.push('Video avatars are coming soon.');
    if (input.dhType === DhType.Image && plan !== SubscriptionType.PRO && plan !== SubscriptionType.ENTERPRISE) {
      throw new AppError(403, AvatarMessages.higherPlanRequired);
    }
    return [...new Set(errors)];
  }

  function parentOf(json: string | undefined): string | undefined {
    if (!json) return undefined;
    try {
      const parsed = JSON.parse(json) as { ParentConfig?: unknown };
      return typeof parsed.ParentConfig === 'string' ? parsed.ParentConfig : undefined;
    } catch {
      return undefined;
    }
  }

  async function storePhoto(userId: number, avatarId: number, base64: string | undefined, file: UploadedMedia | undefined): Promise<string | undefined> {
    let key: string | undefined;
    let size = 0;
    if (file) {
      if (!(file.type in AvatarMedia.avatarPhoto.types)) {
        await storage.delete(file.key);
        throw AppError.badRequest(AvatarMediaMessages.avatarPhotoWrongType);
      }
      key = file.key;
      size = file.size;
    } else if (base64) {
      const m = /^data:image\/jpe?g;base64,([A-Za-z0-9+/=]+)$/.exec(base64);
      const data = m ? Buffer.from(m[1]!, 'base64') : null;
      if (!data || data[0] !== 0xff || data[1] !== 0xd8) throw AppError.badRequest(AvatarMediaMessages.avatarPhotoWrongType);
      const { maxMb, maxPx, label } = AvatarMedia.avatarPhoto;
      if (data.length > maxMb * 1024 * 1024) throw new AppError(413, AvatarMessages.fileTooBig(maxMb, label));
      const dims = jpegSize(data);
      if (!dims || dims.width > maxPx || dims.height > maxPx) throw AppError.badRequest(AvatarMediaMessages.avatarPhotoTooLarge);
      key = `avatars/${userId}/${avatarId}-photo-${Date.now().toString(36)}.jpg`;
      size = data.length;
      await storage.putBuffer(key, data);
    }
    if (!key) return undefined;
    await repo.insertMedia({ userId, avatarId, kind: 'photo', storageKey: key, name: 'photo.jpg', mime: 'image/jpeg', size });
    return storage.url(key);
  }

  /**
   * Asks ElevenLabs about the agent the save sets (the Brain tab's check, again: a save is public
   * API) and refuses an invalid agent or key with the engine form's message; otherwise records
   * whether the agent is public, as ElevenLabs said.
   *
   * When ElevenLabs gives no verdict — no answer within PROVIDER_LOOKUP_TIMEOUT_MS, a 429 or a
   * 5xx — the save goes through unchecked (a warning in the log; `is_public` as the editor sent
   * it). Why: the editor checked the agent moments before and does not submit one it could not
   * check, so a failure between that check and the save is ElevenLabs' outage, not a wrong agent.
   * Refusing would block the whole save (everything else the user changed with it) for as long
   * as ElevenLabs is down, with nothing the user could do about it; and since the agent can be
   * changed or deleted at ElevenLabs at any time after a save, a passed check never was a
   * guarantee the live session could skip. A definite answer (401/403, 404, another 4xx) refuses.
   */
  async function checkAgent(input: TAvatarInputParsed, stored: AvatarRow): Promise<void> {
    const agent = agentToCheck(input, stored);
    if (!agent) return;
    let apiKey: string | undefined;
    if (agent.key.from === 'save') apiKey = agent.key.value;
    if (agent.key.from === 'stored') apiKey = readAvatarConfig(openSecrets(stored.config, box)).brain.thirdParty.apiKey || undefined;
    const verdict = await deps.brainChecks.elevenLabsAgent({ agentId: agent.agentId, connectionType: agent.connectionType, apiKey });
    const problems = agentVerdictErrors(verdict);
    if (problems.length) throw AppError.badRequest(problems);
    if (verdict.unverified) {
      log.warn({ avatarId: stored.id, unverified: verdict.unverified }, 'ElevenLabs agent saved unchecked: ElevenLabs gave no verdict');
      return;
    }
    const third = input.customData.agent_pipeline_config.third_party;
    if (third) third.is_public = verdict.state === 'public';
  }

  async function discard(files: UploadedMedia[]) {
    await Promise.all(files.map((f) => storage.delete(f.key).catch(() => {})));
  }

  return {
    isProductHosted,
    hostedAvatarConfig,

    async list(caller: Caller): Promise<TAvatar[]> {
      const { userId } = caller;
      const rows = await repo.listByUser(userId);
      if (rows.length === 0) return [];
      const [media, counts] = await Promise.all([repo.mediaOfUser(userId), deps.onlineCounts(rows.map((r) => r.id))]);
      const mediaByAvatar = new Map<number | null, MediaRow[]>();
      for (const m of media) mediaByAvatar.set(m.avatarId, [...(mediaByAvatar.get(m.avatarId) ?? []), m]);
      return Promise.all(rows.map((r) => present(caller, r, mediaByAvatar.get(r.id) ?? [], counts.get(r.id) ?? 0)));
    },

    async get(caller: Caller, id: number): Promise<TAvatar> {
      const row = await repo.findOwned(id, caller.userId);
      if (!row) throw AppError.notFound(AvatarMessages.notFound);
      return present(caller, row, await repo.mediaOf([row.id]), await deps.onlineCount(row.id));
    },

    /**
     * Creates (no id) or updates an avatar. Files were already streamed to storage; if the save
     * is refused they are deleted, so a refused request stores nothing.
     */
    async save(caller: Caller, raw: unknown, files: UploadedMedia[] = []): Promise<TAvatar> {
      try {
        const parsed = ZAvatarInput.safeParse(raw);
        if (!parsed.success) throw AppError.badRequest(fieldMessages(parsed.error));
        const input = parsed.data;
        const isCreate = input.id === undefined;
        const plan = await repo.userPlan(caller.userId);
        const errors = validate(input, isCreate, plan);
        if (errors.length) throw AppError.badRequest(errors);

        const stored = isCreate ? undefined : await repo.findOwned(input.id!, caller.userId);
        if (!isCreate && !stored) throw AppError.notFound(AvatarMessages.notFound);
        // A stored key follows its URL or provider only when typed again (contract AvatarSecretFields).
        const keysAgain = stored ? secretsNeededAgain(stored.config, input as Record<string, unknown>) : [];
        if (keysAgain.length) throw AppError.badRequest(keysAgain);
        // The engine's settings (spec "Engine forms"); a create always starts in echo-back mode.
        const engineTouched = !stored || touchesEngine(input, stored);
        if (stored && engineTouched) {
          const engineProblems = engineErrors(input, stored.config);
          if (engineProblems.length) throw AppError.badRequest(engineProblems);
        }
        // The URLs the worker or the server will call: the outbound-URL rule (url-guard.ts).
        const urlProblems = outboundUrlErrors(input, stored?.config, { allowPrivate: deps.allowPrivateUrls, engineTouched });
        if (urlProblems.length) throw AppError.badRequest(urlProblems);

        // Links to other features: only the user's own, and only approved functions (checked
        // for newly linked ones: a linked function sent back to Pending stays until unlinked).
        const storedConfig = stored ? readAvatarConfig(stored.config) : undefined;
        const linked = new Set(storedConfig?.functionIds);
        const newFunctions = input.functions.filter((id) => !linked.has(id));
        if (newFunctions.length) await deps.links.assertFunctionsLinkable(caller.userId, newFunctions);
        let encKey: { id: number; name: string; defaultKey: boolean } | undefined;
        if (input.encKeyId) {
          encKey = await deps.links.findEncKey(caller.userId, input.encKeyId);
          if (!encKey) throw AppError.badRequest('The encryption key was not found.');
        }
        const collectionIds = input.customData.collection_ids;
        if (collectionIds.length > 0 && (await deps.links.foreignCollectionIds(caller.userId, collectionIds)).length > 0) {
          throw AppError.badRequest('The knowledge collection was not found.');
        }
        if (input.oauthEnabled === 1 && input.partnerOauthAppId !== undefined && input.partnerOauthAppId !== null) {
          await deps.links.assertOAuthApp(caller.userId, Number(input.partnerOauthAppId)).catch((err: unknown) => {
            if (err instanceof AppError && err.statusCode === 404) throw AppError.badRequest('The OAuth config was not found.');
            throw err;
          });
        }
        if (stored && input.version !== undefined && input.version < stored.version) {
          throw new AppError(409, ErrorMessages.staleRequest, FailReason.StaleRequest);
        }
        if (isCreate) {
          const max = deps.maxAvatarsFor(plan);
          if (max !== null && (await repo.countByUser(caller.userId)) >= max) {
            throw new AppError(403, AvatarMessages.limitReached, FailReason.AvatarCreateLimitReached);
          }
        }

        // Last before storing (it asks a provider): the ElevenLabs agent, when the save changes it.
        if (stored) await checkAgent(input, stored);

        const rawObj = raw as Record<string, unknown>;
        const config: Record<string, unknown> = { ...input, encKey: encKey ? { id: encKey.id, name: encKey.name, defaultKey: encKey.defaultKey } : null };
        for (const key of COLUMN_FIELDS) delete config[key];
        // Admin-proxy-only fields keep their stored (or default) values for everyone else.
        if (!caller.adminProxy) {
          for (const key of ADMIN_PROXY_ONLY) {
            config[key] = stored && key in stored.config ? stored.config[key] : ADMIN_PROXY_DEFAULTS[key];
          }
          input.customData.words_per_sec = storedConfig?.wordsPerSecond ?? AvatarLimits.wordsPerSecondDefault;
        }
        // Older interruption names are accepted and stored under the current ones.
        const ih = input.customData.agent_pipeline_config.interrupt_handling;
        if (ih) {
          ih.min_interruption_duration ??= ih.interrupt_speech_duration;
          ih.min_interruption_words ??= ih.interrupt_min_words;
          delete ih.interrupt_speech_duration;
          delete ih.interrupt_min_words;
        }

        // Config hosting: product-hosted unless the customer hosts it, until they transfer it.
        const wantedUrl = input.avatarConfigURL ?? storedConfig?.page.avatarConfigUrl ?? undefined;
        const selfHosted = wantedUrl && !isProductHosted(wantedUrl) && !input.transferConfigHosting;
        const wantedClientUrl = input.clientConfigURL ?? storedConfig?.page.clientConfigUrl ?? undefined;
        const clientSelfHosted = wantedClientUrl && !isProductHosted(wantedClientUrl) && !input.transferConfigHosting;

        const sealed = sealSecrets(config, stored?.config, box);
        const values = {
          name: input.name,
          nlpEngine: isCreate ? NlpEngine.EchoTest : input.nlpEngine,
          dhType: input.dhType,
          setupMode: isCreate ? 0 : input.setupMode,
        };
        let row: AvatarRow;
        if (isCreate) {
          row = await repo.insert({ userId: caller.userId, ...values, config: sealed });
        } else {
          const updated = await repo.updateIfVersion(stored!.id, caller.userId, stored!.version, { ...values, config: sealed });
          if (!updated) throw new AppError(409, ErrorMessages.staleRequest, FailReason.StaleRequest);
          row = updated;
        }
        const finalConfig = {
          ...row.config,
          avatarConfigURL: selfHosted ? wantedUrl : hostedAvatarConfig(row.id),
          clientConfigURL: clientSelfHosted ? wantedClientUrl : hostedClientConfig(row.id),
        };

        // Media: new files, removals, photo.
        for (const f of files.filter((f) => f.field !== 'avatarPhoto')) {
          const kind = f.field === 'scene' || f.field === 'avatarModel' ? f.field : f.type.startsWith('video/') ? 'backgroundVideo' : 'backgroundImage';
          await repo.insertMedia({ userId: caller.userId, avatarId: row.id, kind, storageKey: f.key, name: f.name.slice(0, 200), mime: f.type, size: f.size, meta: f.model ?? null });
        }
        if (input.deleteMediaIds?.length) {
          const doomed = await repo.ownedMedia(input.deleteMediaIds, row.id, caller.userId);
          await repo.deleteMedia(doomed.map((m) => m.id));
          await Promise.all(doomed.map((m) => storage.delete(m.storageKey).catch((err: unknown) => log.warn({ err }, 'media file not deleted'))));
        }
        const photoUrl = await storePhoto(caller.userId, row.id, rawObj.avatarPhotoBase64 as string | undefined, files.find((f) => f.field === 'avatarPhoto'));
        const again = await repo.updateIfVersion(row.id, caller.userId, row.version, { config: finalConfig, ...(photoUrl ? { photoUrl } : {}) });
        row = again ?? row;
        return present(caller, row, await repo.mediaOf([row.id]), await deps.onlineCount(row.id));
      } catch (err) {
        await discard(files);
        throw err;
      }
    },

    /**
     * The caller's own avatar's configuration with its keys in the clear, for the provider
     * look-ups that run with a stored key (a masked form value). Never sent to a client.
     */
    async storedConfig(userId: number, id: number): Promise<TAvatarConfig> {
      const row = await repo.findOwned(id, userId);
      if (!row) throw AppError.notFound(AvatarMessages.notFound);
      return readAvatarConfig(openSecrets(row.config, box));
    },

    async remove(userId: number, id: number): Promise<void> {
      const row = await repo.findOwned(id, userId);
      if (!row) throw AppError.notFound(AvatarMessages.notFound);
      const media = await repo.mediaOf([id]);
      await repo.delete(id, userId);
      await Promise.all(media.map((m) => storage.delete(m.storageKey).catch(() => {})));
    },

    /** The avatar's hosted config document (public: the avatar page reads it). */
    async hostedConfig(id: number, which: 'avatar' | 'client'): Promise<Record<string, unknown>> {
      const row = await repo.findById(id);
      if (!row) throw AppError.notFound();
      const { page } = readAvatarConfig(row.config);
      const json = which === 'avatar' ? page.avatarJson : page.clientJson;
      if (!json) return which === 'avatar' ? { ParentConfig: '/catalog/avatar-configs/base-upper-body.json' } : {};
      return JSON.parse(json) as Record<string, unknown>;
    },
  };
}

export type AvatarService = ReturnType<typeof createAvatarService>;

function fieldMessages(error: z.ZodError): string[] {
  return [
    ...new Set(
      error.issues.map((i) => {
        const field = i.path.join('.');
        return field && /^(Invalid|Too (big|small)|Unrecognized|Expected)/.test(i.message) ? `${field}: ${i.message}` : i.message;
      }),
    ),
  ];
}
