import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ProviderLookupLimits,
  ZDeepgramModelsRequest,
  ZDeepgramModelsResponse,
  ZElevenLabsAgentCheckRequest,
  ZElevenLabsAgentCheckResponse,
  ZLlmAssistantsRequest,
  ZLlmAssistantsResponse,
  ZLlmModelsRequest,
  ZLlmModelsResponse,
  ZPlatformServicesResponse,
  type TPlatformServicesResponse,
  ZSttLanguagesRequest,
  ZSttLanguagesResponse,
  ZTtsVoicesRequest,
  ZTtsVoicesResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { ProviderLookups } from './service.js';

/**
 * The Brain tab's provider look-ups: POST (keys travel in the body, never in a URL), signed-in
 * users only, a budget per user and look-up (each call reaches a provider), answers never cached.
 */
export function providerLookupRoutes(deps: { lookups: ProviderLookups; guards: AuthGuards }) {
  const { lookups, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const tags = ['provider look-ups'];
    // Per user and look-up: the session guard runs first (onRequest), so the budget is the user's wherever they call from.
    const perUser = {
      rateLimit: {
        max: ProviderLookupLimits.perUserPerMinute,
        timeWindow: '1 minute',
        keyGenerator: (req: FastifyRequest) => (req.auth ? `user:${req.auth.userId}` : `ip:${req.ip}`),
      },
    };
    const caller = (req: FastifyRequest) => ({ userId: requireAuth(req).userId });

    app.addHook('onSend', async (_req, reply) => {
      reply.header('cache-control', 'no-store');
    });

    app.post(
      '/api/lookups/llm_models',
      { onRequest: guards.session, config: perUser, schema: { tags, body: ZLlmModelsRequest, response: { 200: ZLlmModelsResponse } } },
      async (req) => ({ status: 'OK' as const, models: await lookups.llmModels(caller(req), req.body) }),
    );
    app.post(
      '/api/lookups/llm_assistants',
      { onRequest: guards.session, config: perUser, schema: { tags, body: ZLlmAssistantsRequest, response: { 200: ZLlmAssistantsResponse } } },
      async (req) => ({ status: 'OK' as const, assistants: await lookups.llmAssistants(caller(req), req.body) }),
    );
    app.post(
      '/api/lookups/tts_voices',
      { onRequest: guards.session, config: perUser, schema: { tags, body: ZTtsVoicesRequest, response: { 200: ZTtsVoicesResponse } } },
      async (req) => ({ status: 'OK' as const, ttsProvider: req.body.ttsProvider, ttsVoices: await lookups.ttsVoices(caller(req), req.body) }),
    );
    app.post(
      '/api/lookups/stt_languages',
      { onRequest: guards.session, config: perUser, schema: { tags, body: ZSttLanguagesRequest, response: { 200: ZSttLanguagesResponse } } },
      async (req) => ({ status: 'OK' as const, sttProvider: req.body.sttProvider, languages: await lookups.sttLanguages(caller(req), req.body) }),
    );
    app.post(
      '/api/lookups/deepgram_models',
      { onRequest: guards.session, config: perUser, schema: { tags, body: ZDeepgramModelsRequest, response: { 200: ZDeepgramModelsResponse } } },
      async (req) => ({ status: 'OK' as const, models: await lookups.deepgramModels(caller(req), req.body) }),
    );
    app.post(
      '/api/lookups/elevenlabs_agent',
      { onRequest: guards.session, config: perUser, schema: { tags, body: ZElevenLabsAgentCheckRequest, response: { 200: ZElevenLabsAgentCheckResponse } } },
      async (req) => ({ status: 'OK' as const, ...(await lookups.elevenLabsAgent(caller(req), req.body)) }),
    );
  };
}

/**
 * GET /api/lookups/platform: which of the product's own services this server runs (signed-in
 * users; nothing secret — two booleans, and the providers and default voice of its own speech).
 * Realtime: a worker connected to this instance reported the operator's key (with several
 * instances, one whose workers are elsewhere may say no). Speech: this portal's PLATFORM_TTS_* and
 * PLATFORM_STT_* (its embedded worker's; separate workers are given the same values).
 */
export function platformServicesRoute(deps: { guards: AuthGuards; platform: () => Promise<Omit<TPlatformServicesResponse, 'status'>> }) {
  return async function plugin(fastify: FastifyInstance) {
    fastify.withTypeProvider<ZodTypeProvider>().get(
      '/api/lookups/platform',
      { onRequest: deps.guards.session, schema: { tags: ['provider look-ups'], response: { 200: ZPlatformServicesResponse } } },
      async (_req, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'OK' as const, ...(await deps.platform()) };
      },
    );
  };
}
