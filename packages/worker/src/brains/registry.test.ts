import { describe, expect, it } from 'vitest';
import type { TLiveBrainConfig } from '@persona/contract';
import { sessionConfig, testDeps } from '../test/brain-deps.js';
import { createProviderBrain } from './registry.js';

describe('provider brain registry', () => {
  it.each<[TLiveBrainConfig, string | null]>([
    [{ kind: 'llm', baseUrl: 'https://api.groq.com/openai/v1', apiKey: 'k', model: 'm', instructions: 'i', maxTokens: null, platform: false }, 'llm'],
    [{ kind: 'assistant', baseUrl: 'https://api.openai.com/v1', apiKey: 'k', assistantId: 'asst_1', instructions: 'i', maxTokens: null }, 'assistant'],
    [{ kind: 'rest', url: 'https://bot.example.com/', apiKey: 'k', customText: '', agentLanguage: 'en-US', sendChatHistory: false }, 'rest'],
    [{ kind: 'dialogflow', version: 'cx', projectId: 'p', agentId: 'a', regionId: 'global', language: 'en', serviceAccountJson: '{}' }, 'dialogflow'],
    [{ kind: 'echo' }, null],
    [{ kind: 'unavailable', code: 'platform-not-configured', detail: 'no platform model' }, null],
  ])('%o → %s, without any I/O', (brain, kind) => {
    const deps = testDeps(sessionConfig(brain));
    expect(createProviderBrain(deps)?.kind ?? null).toBe(kind);
    deps.fetch.close();
  });
});
