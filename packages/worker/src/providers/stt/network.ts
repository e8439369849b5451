import { everyFieldRead, SetupMode, SttProvider, type TLiveStt, type TPlatformStt } from '@persona/contract';
import type { GuardedFetch } from '../../core/types.js';
import type { SttTimeouts } from './batch.js';
import { AZURE_STT, createAzureStt } from './azure.js';
import { createDeepgramStt, DEEPGRAM } from './deepgram.js';
import { createGoogleStt, GOOGLE_STT } from './google.js';
import { createOpenAiStt, OPENAI_STT } from './openai-compatible.js';
import type { SttEngine, SttOptions } from './types.js';

/**
 * The network speech-to-text providers, from the avatar's speech to text as the portal read it
 * (contract TLiveStt: typed, keys decrypted) — for the listening pipeline's chooser (choose.ts),
 * which adds the offline recogniser and the browser fallback:
 * - Speech to Speech and 3rd-party modes, provider None: no STT here (null, with the reason);
 * - Simple mode or provider Default: the operator's hosted STT (`default_stt` picks azure /
 *   google / deepgram / openai among the ones the operator configured), null when none is;
 * - Google (1), Azure (2), Deepgram (3), or an OpenAI-compatible endpoint (`provider: 'openai'`
 *   with `baseUrl`): the avatar's own keys; missing keys → null with the reason.
 * `languages` (the first is the main one), `model`, `phrases` and the endpointing hint
 * (`endpointingMs`, Deepgram) become the session's SttOptions.
 */
export interface OperatorStt {
  /** `baseUrl` (Azure, Google, Deepgram): a gateway instead of the provider's host; `model`: the operator's, over the avatar's. */
  azure?: { apiKey: string; region: string; baseUrl?: string };
  google?: { apiKey: string; region?: string; baseUrl?: string; model?: string };
  deepgram?: { apiKey: string; baseUrl?: string; model?: string };
  openai?: { baseUrl: string; apiKey: string; model?: string };
}

/** The operator's speech to text of PLATFORM_STT_* (contract's platformSpeechFromEnv) as the chooser takes it. */
export function operatorSttOf(stt: TPlatformStt | null): OperatorStt {
  if (!stt) return {};
  const extra = { ...(stt.url ? { baseUrl: stt.url } : {}), ...(stt.model ? { model: stt.model } : {}) };
  switch (stt.provider) {
    case 'azure':
      return { azure: { apiKey: stt.apiKey, region: stt.region ?? '', ...(stt.url ? { baseUrl: stt.url } : {}) } };
    case 'google':
      return { google: { apiKey: stt.apiKey, ...(stt.region ? { region: stt.region } : {}), ...extra } };
    case 'deepgram':
      return { deepgram: { apiKey: stt.apiKey, ...extra } };
    case 'openai':
      return { openai: { baseUrl: stt.url ?? '', apiKey: stt.apiKey, ...(stt.model ? { model: stt.model } : {}) } };
  }
}

/** Provider base URLs (tests, proxies, sovereign clouds); `azure`/`google` may contain `{region}`. */
export interface SttBaseUrls {
  deepgram?: string;
  azure?: string;
  google?: string;
}

/** `baseUrl`: the operator's gateway (its choices only; the avatar's own keys go to the provider's host). */
export type NetworkSttChoice =
  | { kind: 'deepgram'; apiKey: string; operator: boolean; baseUrl?: string }
  | { kind: 'azure'; apiKey: string; region: string; operator: boolean; baseUrl?: string }
  | { kind: 'google'; apiKey: string; region?: string; operator: boolean; baseUrl?: string }
  | { kind: 'openai'; baseUrl: string; apiKey: string; model?: string; operator: boolean };

export type SttSettings = Pick<SttOptions, 'languages' | 'model' | 'phrases' | 'endpointingMs'>;

export interface NetworkSttPick {
  /** null: no network STT for this avatar (see reason). */
  choice: NetworkSttChoice | null;
  reason: string;
  settings: SttSettings;
}

/** The fields of one provider's STT: without the ones every STT has (its settings, the hosted pick). */
function providerFields<T extends TLiveStt>(stt: T) {
  const { provider: _provider, defaultStt: _defaultStt, languages: _languages, model: _model, phrases: _phrases, endpointingMs: _endpointingMs, ...fields } = stt;
  return fields;
}

/** Languages, model, phrases and the endpointing hint of the session's STT. */
export function sttSettingsOf(stt: TLiveStt): SttSettings {
  const { languages, model, phrases, endpointingMs } = stt;
  return { languages, ...(model ? { model } : {}), ...(phrases ? { phrases } : {}), ...(endpointingMs ? { endpointingMs } : {}) };
}

export function chooseNetworkStt(input: { setupMode: number; stt: TLiveStt }, operator: OperatorStt = {}): NetworkSttPick {
  const { stt } = input;
  const settings = sttSettingsOf(stt);
  const none = (reason: string): NetworkSttPick => ({ choice: null, reason, settings });
  if (input.setupMode === SetupMode.SpeechToSpeech || input.setupMode === SetupMode.None) return none('the realtime model or the agent listens');
  if (input.setupMode === SetupMode.Simple || stt.provider === SttProvider.Default) {
    return hosted(stt.defaultStt, operator, settings, input.setupMode === SetupMode.Simple ? 'Simple mode' : 'Default STT');
  }
  // Each provider names every field it has (everyFieldRead): a field added to the contract is a compile error here.
  switch (stt.provider) {
    case SttProvider.None:
      return none('speech to text is off (None)');
    case SttProvider.Deepgram: {
      const { apiKey, ...unread } = providerFields(stt);
      everyFieldRead(unread);
      if (!apiKey) return none("the avatar's Deepgram key is missing");
      return { choice: { kind: 'deepgram', apiKey, operator: false }, reason: '', settings };
    }
    case SttProvider.Azure: {
      const { apiKey, region, ...unread } = providerFields(stt);
      everyFieldRead(unread);
      if (!apiKey || !region) return none("the avatar's Azure key or region is missing");
      return { choice: { kind: 'azure', apiKey, region, operator: false }, reason: '', settings };
    }
    case SttProvider.Google: {
      const { apiKey, region, ...unread } = providerFields(stt);
      everyFieldRead(unread);
      if (!apiKey) return none("the avatar's Google key is missing");
      return { choice: { kind: 'google', apiKey, ...(region ? { region } : {}), operator: false }, reason: '', settings };
    }
    case 'openai': {
      const { apiKey, baseUrl, ...unread } = providerFields(stt);
      everyFieldRead(unread);
      if (!baseUrl) return none("the avatar's transcription endpoint (base_url) is missing");
      return { choice: { kind: 'openai', baseUrl, apiKey, ...(settings.model ? { model: settings.model } : {}), operator: false }, reason: '', settings };
    }
    case 'unknown':
      return none(`unknown speech-to-text provider ${JSON.stringify(stt.name).slice(0, 40)}`);
  }
}

/** The product's own STT: the operator's provider that `default_stt` names, else any it configured. */
function hosted(defaultStt: string, op: OperatorStt, settings: SttSettings, why: string): NetworkSttPick {
  const without = <T extends { model?: string }>(o: T): Omit<T, 'model'> => {
    const { model: _model, ...rest } = o;
    return rest;
  };
  const all: Record<string, NetworkSttChoice | undefined> = {
    azure: op.azure && { kind: 'azure', ...op.azure, operator: true },
    google: op.google && { kind: 'google', ...without(op.google), operator: true },
    deepgram: op.deepgram && { kind: 'deepgram', ...without(op.deepgram), operator: true },
    openai: op.openai && { kind: 'openai', ...op.openai, operator: true },
  };
  const key = [defaultStt, 'azure', 'google', 'deepgram', 'openai'].find((k) => all[k]);
  const pick = key ? all[key] : undefined;
  if (!key || !pick) return { choice: null, reason: `${why}: no hosted speech to text is configured on this server`, settings };
  // The stored model belongs to the avatar's provider list; the operator's own model wins for its endpoint.
  const model = (op[key as keyof OperatorStt] as { model?: string } | undefined)?.model;
  return { choice: pick, reason: '', settings: model ? { ...settings, model } : settings };
}

export interface SttEngineDeps {
  /** The guarded fetch (an OpenAI-compatible base URL is the avatar owner's). */
  fetch: GuardedFetch;
  /** The operator's endpoints may be private: their own fetch (default: `fetch`). */
  operatorFetch?: GuardedFetch;
  baseUrls?: SttBaseUrls;
  timeouts?: Partial<SttTimeouts>;
  /** Deepgram: KeepAlive after this long with nothing sent (default 3 s). */
  keepAliveMs?: number;
}

/** Provider name → engine factory (the registry choose.ts plugs in). */
export const networkSttFactories: { [K in NetworkSttChoice['kind']]: (choice: Extract<NetworkSttChoice, { kind: K }>, deps: SttEngineDeps) => SttEngine } = {
  deepgram: (c, d) => createDeepgramStt({ apiKey: c.apiKey, ...((c.baseUrl ?? d.baseUrls?.deepgram) ? { baseUrl: c.baseUrl ?? d.baseUrls?.deepgram } : {}), ...(d.keepAliveMs ? { keepAliveMs: d.keepAliveMs } : {}), ...(d.timeouts ? { timeouts: d.timeouts } : {}) }),
  azure: (c, d) => createAzureStt({ apiKey: c.apiKey, region: c.region, ...((c.baseUrl ?? d.baseUrls?.azure) ? { baseUrl: c.baseUrl ?? d.baseUrls?.azure } : {}), ...(d.timeouts ? { timeouts: d.timeouts } : {}) }),
  google: (c, d) =>
    createGoogleStt({ apiKey: c.apiKey, ...(c.region ? { region: c.region } : {}), fetch: c.operator ? (d.operatorFetch ?? d.fetch) : d.fetch, ...((c.baseUrl ?? d.baseUrls?.google) ? { baseUrl: c.baseUrl ?? d.baseUrls?.google } : {}), ...(d.timeouts ? { timeouts: d.timeouts } : {}) }),
  openai: (c, d) => createOpenAiStt({ baseUrl: c.baseUrl, apiKey: c.apiKey, fetch: c.operator ? (d.operatorFetch ?? d.fetch) : d.fetch, ...(d.timeouts ? { timeouts: d.timeouts } : {}) }),
};

export function createNetworkSttEngine(choice: NetworkSttChoice, deps: SttEngineDeps): SttEngine {
  const factory = networkSttFactories[choice.kind] as (c: NetworkSttChoice, d: SttEngineDeps) => SttEngine;
  return factory(choice, deps);
}

export const NETWORK_STT_PROVIDERS = [DEEPGRAM, AZURE_STT, GOOGLE_STT, OPENAI_STT] as const;
