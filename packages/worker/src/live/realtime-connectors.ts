import { RealtimeBaseUrls, type TLiveBrainConfig } from '@persona/contract';
import { connectElevenLabsConvAi } from '../providers/realtime/elevenlabs.js';
import { connectGeminiLive } from '../providers/realtime/gemini.js';
import { connectOpenAiRealtime, type RealtimeSettings } from '../providers/realtime/openai.js';
import type { RealtimeConnector } from '../providers/realtime/types.js';
import { connectExternalAgent } from './external-agent.js';
import type { AgentJoiner } from './agent-bridge.js';

/** Brain kinds whose conversation is a connection that hears and speaks itself (no STT, brain or TTS of ours). */
const CONNECTED_KINDS = ['realtime', 'agent', 'elevenlabs'] as const;
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

export interface ElevenLabsOptions {
  /** Default https://api.elevenlabs.io (the conversation socket is its ws(s) twin); set here, it may be private. */
  baseUrl?: string;
  /** An answer ends when nothing of it arrived for this long (ms, default 1200). */
  quietMs?: number;
}

export interface ConnectorOptions {
  brain: RealtimeBrainConfig;
  operator?: OperatorRealtime;
  /** ALLOW_PRIVATE_URLS for the avatar's own URL (the operator's may always be private). */
  allowPrivateUrls: boolean;
  textOnly: boolean;
  connectTimeoutMs?: number;
  /** ElevenLabs Conversational AI (kind 'elevenlabs'): the operator's API base (tests: a local fake) and answer-end rule. */
  elevenLabs?: ElevenLabsOptions;
  /** Bring your own agent (kind 'agent'): how this session gets its agent (live/agent-bridge.ts). */
  agents?: AgentJoiner;
}

/** The OpenAI connection settings, or null for the product's realtime without an operator key. */
export function realtimeSettings(o: ConnectorOptions): RealtimeSettings | null {
  const b = o.brain;
  if (b.kind !== 'realtime') return null;
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
        case 'gemini': {
          // Gemini Live always runs on the avatar's own key (the product's realtime is OpenAI's).
          if (b.platform) return null;
          const s = { url: b.url || RealtimeBaseUrls[1].url, apiKey: b.apiKey, model: b.model, voice: b.voice, instructions: b.instructions, vad: b.vad, textOnly: o.textOnly, allowPrivate: o.allowPrivateUrls, connectTimeoutMs: o.connectTimeoutMs };
          return (onEvent, signal, tools) => connectGeminiLive({ ...s, tools }, onEvent, signal);
        }
        default:
          return null;
      }
    case 'elevenlabs': {
      const el = o.elevenLabs ?? {};
      const s = { agentId: b.agentId, apiKey: b.apiKey, isPublic: b.isPublic, baseUrl: el.baseUrl, quietMs: el.quietMs, allowPrivate: o.allowPrivateUrls || Boolean(el.baseUrl), connectTimeoutMs: o.connectTimeoutMs };
      return (onEvent, signal, tools) => connectElevenLabsConvAi({ ...s, tools }, onEvent, signal);
    }
    case 'agent': {
      const agents = o.agents;
      return agents ? (onEvent, signal) => connectExternalAgent(agents, onEvent, signal) : null;
    }
    default:
      return null;
  }
}
