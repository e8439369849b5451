import { RealtimeBaseUrls, type TLiveBrainConfig } from '@persona/contract';
import { connectOpenAiRealtime, type RealtimeSettings } from '../providers/realtime/openai.js';
import type { RealtimeConnector } from '../providers/realtime/types.js';

/** Brain kinds whose conversation is a connection that hears and speaks itself (no STT, brain or TTS of ours). */
const CONNECTED_KINDS = ['realtime'] as const;
export type RealtimeBrainConfig = Extract<TLiveBrainConfig, { kind: (typeof CONNECTED_KINDS)[number] }>;

export function isConnectedBrain(brain: TLiveBrainConfig): brain is RealtimeBrainConfig {
  return (CONNECTED_KINDS as readonly string[]).includes(brain.kind);
}

/** The product's own realtime (avatars without a key of their own): the operator's key and URL. */
export interface OperatorRealtime {
  apiKey?: string;
  /** Default: OpenAI's wss://api.openai.com/v1/realtime. */
  url?: string;
}

export interface ConnectorOptions {
  brain: RealtimeBrainConfig;
  operator?: OperatorRealtime;
  /** ALLOW_PRIVATE_URLS for the avatar's own URL (the operator's may always be private). */
  allowPrivateUrls: boolean;
  textOnly: boolean;
  connectTimeoutMs?: number;
}

/** The OpenAI connection settings, or null for the product's realtime without an operator key. */
export function realtimeSettings(o: ConnectorOptions): RealtimeSettings | null {
  const b = o.brain;
  const common = { model: b.model, voice: b.voice, instructions: b.instructions, vad: b.vad, textOnly: o.textOnly, connectTimeoutMs: o.connectTimeoutMs };
  if (!b.platform) return { ...common, url: b.url || RealtimeBaseUrls[0].url, apiKey: b.apiKey, allowPrivate: o.allowPrivateUrls };
  if (!o.operator?.apiKey) return null;
  return { ...common, url: o.operator.url || RealtimeBaseUrls[0].url, apiKey: o.operator.apiKey, allowPrivate: true };
}

/**
 * How a session reaches its provider (one `case` per provider); null when it cannot connect at
 * all — the product's realtime without the operator's key.
 */
export function realtimeConnector(o: ConnectorOptions): RealtimeConnector | null {
  const b = o.brain;
  switch (b.kind) {
    case 'realtime':
      switch (b.provider) {
        case 'openai': {
          const s = realtimeSettings(o);
          return s ? (onEvent, signal, tools) => connectOpenAiRealtime({ ...s, tools }, onEvent, signal) : null;
        }
        default:
          return null;
      }
    default:
      return null;
  }
}
