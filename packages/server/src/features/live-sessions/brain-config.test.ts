import { describe, expect, it } from 'vitest';
import { DefaultLlmInstruction } from '@persona/contract';
import { brainConfig } from './brain-config.js';

// Spec section 5: "An empty LLM prompt falls back to a default instruction asking for replies of 15-35 words."
describe('the LLM prompt at runtime', () => {
  const avatar = (instructions: unknown) => ({
    nlpEngine: 10,
    setupMode: 1,
    config: { customData: { agent_pipeline_config: { llm: { base_url: 'https://llm.example.com/v1', api_key: 'k', model: 'm', instructions } } } },
  });

  it('is the default asking for 15–35 words when empty or blank', () => {
    for (const empty of [undefined, '', '   \n']) {
      const brain = brainConfig(avatar(empty), null);
      expect(brain).toMatchObject({ kind: 'llm', instructions: DefaultLlmInstruction });
    }
    expect(DefaultLlmInstruction).toMatch(/between 15 and 35 words/);
  });

  it('is the avatar’s own prompt otherwise', () => {
    expect(brainConfig(avatar('You are the harbour guide.'), null)).toMatchObject({ kind: 'llm', instructions: 'You are the harbour guide.' });
  });
});

// Issue 15: SpeechToSpeech (engine 9) runs OpenAI Realtime with the avatar's settings and server VAD.
describe('the realtime engine at runtime', () => {
  const avatar = (s2s: Record<string, unknown>, vad: Record<string, unknown> = {}, wakeUpMessage = '') => ({
    nlpEngine: 9,
    setupMode: 2,
    config: { wakeUpMessage, customData: { agent_pipeline_config: { speech_to_speech: s2s, vad_options: vad } } },
  });

  it('carries the avatar’s URL, key, model, voice, greeting and realtime VAD', () => {
    const brain = brainConfig(
      avatar({ url: 'wss://rt.example.com/v1/realtime', api_key: 'sk-own', model: 'gpt-realtime', voice_id: 'verse', instructions: 'Be the harbour guide.', greeting: 'Ahoy!' }, { threshold: '0.7', prefix_padding_ms: 200, silence_duration_ms: '650', activation_threshold: 0.2 }),
      null,
    );
    expect(brain).toEqual({
      kind: 'realtime',
      provider: 'openai',
      url: 'wss://rt.example.com/v1/realtime',
      apiKey: 'sk-own',
      platform: false,
      model: 'gpt-realtime',
      voice: 'verse',
      instructions: 'Be the harbour guide.',
      greeting: 'Ahoy!',
      vad: { threshold: 0.7, prefixPaddingMs: 200, silenceDurationMs: 650 },
    });
  });

  it('without a key is the product’s realtime (operator key on the worker); defaults fill the gaps', () => {
    const brain = brainConfig(avatar({ url: 'wss://rt.example.com/v1/realtime' }, { threshold: 7 }, 'Welcome aboard.'), null);
    expect(brain).toMatchObject({ kind: 'realtime', platform: true, url: '', apiKey: '', model: 'gpt-4o-mini-realtime-preview', voice: 'alloy', greeting: 'Welcome aboard.', instructions: DefaultLlmInstruction });
    expect(brain).toMatchObject({ vad: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } });
  });

  it('Gemini Live is not built yet: unavailable, said so', () => {
    expect(brainConfig(avatar({ url: 'wss://generativelanguage.googleapis.com/ws', api_key: 'g' }), null)).toMatchObject({ kind: 'unavailable', detail: 'Gemini Live does not run on this server yet' });
  });
});
