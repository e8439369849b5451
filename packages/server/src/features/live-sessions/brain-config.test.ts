import { describe, expect, it } from 'vitest';
import { DefaultLlmInstruction, NlpEngines, readAvatarConfig } from '@persona/contract';
import { brainConfig } from './brain-config.js';

// Spec section 5: "An empty LLM prompt falls back to a default instruction asking for replies of 15-35 words."
describe('the LLM prompt at runtime', () => {
  const avatar = (instructions: unknown) => ({
    nlpEngine: 10,
    setupMode: 1,
    config: readAvatarConfig({ customData: { agent_pipeline_config: { llm: { base_url: 'https://llm.example.com/v1', api_key: 'k', model: 'm', instructions } } } }),
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

// Issue 15: SpeechToSpeech (engine 9) runs OpenAI Realtime or Gemini Live with the avatar's settings and server VAD.
describe('the realtime engine at runtime', () => {
  const avatar = (s2s: Record<string, unknown>, vad: Record<string, unknown> = {}, wakeUpMessage = '') => ({
    nlpEngine: 9,
    setupMode: 2,
    config: readAvatarConfig({ wakeUpMessage, customData: { agent_pipeline_config: { speech_to_speech: s2s, vad_options: vad } } }),
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

  it('a Gemini URL with a key is Gemini Live, with the avatar’s voice, model and VAD', () => {
    const brain = brainConfig(
      avatar({ url: 'wss://generativelanguage.googleapis.com/ws', api_key: 'AIza-own', model: 'gemini-2.0-flash-exp', voice_id: 'Kore', instructions: 'Be the harbour guide.' }, { threshold: 0.6 }, 'Hello!'),
      null,
    );
    expect(brain).toEqual({
      kind: 'realtime',
      provider: 'gemini',
      url: 'wss://generativelanguage.googleapis.com/ws',
      apiKey: 'AIza-own',
      platform: false,
      model: 'gemini-2.0-flash-exp',
      voice: 'Kore',
      instructions: 'Be the harbour guide.',
      greeting: 'Hello!',
      vad: { threshold: 0.6, prefixPaddingMs: 300, silenceDurationMs: 500 },
    });
  });

  it('Gemini: an empty voice or model, or one of OpenAI’s (the URL switched, the rest left), falls back to Gemini’s first', () => {
    const url = 'wss://generativelanguage.googleapis.com/ws';
    expect(brainConfig(avatar({ url, api_key: 'g' }), null)).toMatchObject({ provider: 'gemini', voice: 'Aoede', model: 'gemini-2.0-flash-exp' });
    expect(brainConfig(avatar({ url, api_key: 'g', voice_id: 'alloy', model: 'gpt-4o-realtime-preview' }), null)).toMatchObject({ provider: 'gemini', voice: 'Aoede', model: 'gemini-2.0-flash-exp' });
    expect(brainConfig(avatar({ url, api_key: 'g', voice_id: 'Puck', model: 'gemini-live-2.5-flash-preview' }), null)).toMatchObject({ voice: 'Puck', model: 'gemini-live-2.5-flash-preview' });
    // And the other way round: an OpenAI avatar keeps no Gemini voice or model.
    expect(brainConfig(avatar({ url: 'wss://api.openai.com/v1/realtime', api_key: 'sk', voice_id: 'Charon', model: 'gemini-2.0-flash-exp' }), null)).toMatchObject({ provider: 'openai', voice: 'alloy', model: 'gpt-4o-mini-realtime-preview' });
  });

  it('the product’s realtime (no key) stays OpenAI with the operator’s key, even with a Gemini URL left in the form', () => {
    const brain = brainConfig(avatar({ url: 'wss://generativelanguage.googleapis.com/ws', voice_id: 'Fenrir', model: 'gemini-2.0-flash-exp' }), null);
    expect(brain).toMatchObject({ kind: 'realtime', provider: 'openai', platform: true, url: '', apiKey: '', voice: 'alloy', model: 'gpt-4o-mini-realtime-preview' });
  });
});

// Issue 15: None mode with ElevenLabs Conversational AI (engine 11) runs the agent from `third_party`.
describe('the ElevenLabs Conversational AI engine at runtime', () => {
  const avatar = (third: Record<string, unknown> | undefined, wakeUpMessage = 'Hello there.') => ({
    nlpEngine: 11,
    setupMode: 3,
    config: readAvatarConfig({ wakeUpMessage, customData: { agent_pipeline_config: third ? { third_party: third } : {} } }),
  });

  it('a private agent carries the (opened) key; the agent’s own first message greets', () => {
    expect(brainConfig(avatar({ agent_id: ' agent_0123456789 ', api_key: 'sk_el_private_key', is_public: false, connection_type: 'websocket' }), null)).toEqual({
      kind: 'elevenlabs',
      agentId: 'agent_0123456789',
      apiKey: 'sk_el_private_key',
      isPublic: false,
      connectionType: 'websocket',
      greeting: '',
    });
  });

  it('a public agent needs no key; WebRTC is the default connection type (the worker connects by WebSocket all the same)', () => {
    expect(brainConfig(avatar({ agent_id: 'agent_public_0001', is_public: true }), null)).toEqual({ kind: 'elevenlabs', agentId: 'agent_public_0001', apiKey: '', isPublic: true, connectionType: 'webrtc', greeting: '' });
    // No key stored and no verdict: connecting by id is all there is to try.
    expect(brainConfig(avatar({ agent_id: 'agent_public_0001' }), null)).toMatchObject({ isPublic: true, apiKey: '' });
    // A public agent with a key kept from before stays public.
    expect(brainConfig(avatar({ agent_id: 'agent_public_0001', api_key: 'sk_old', is_public: true }), null)).toMatchObject({ isPublic: true });
  });

  it('without an agent id: unavailable, said so', () => {
    expect(brainConfig(avatar(undefined), null)).toMatchObject({ kind: 'unavailable', detail: 'no ElevenLabs agent id is set' });
    expect(brainConfig(avatar({ agent_id: '  ' }), null)).toMatchObject({ kind: 'unavailable' });
  });
});

// Issue 15, bring your own agent (ADR 072): Ten and Custom STT/LLM/TTS are served by the customer's agent.
describe('the agent engines at runtime', () => {
  it('Ten (8) and CUSTOM_STT_LLM_TTS (12) are `agent` brains greeting with the wake-up message', () => {
    expect(brainConfig({ nlpEngine: 8, setupMode: 3, config: readAvatarConfig({ wakeUpMessage: ' Hi there ' }) }, null)).toEqual({ kind: 'agent', framework: 'ten', greeting: 'Hi there' });
    expect(brainConfig({ nlpEngine: 12, setupMode: 3, config: readAvatarConfig({}) }, null)).toEqual({ kind: 'agent', framework: 'custom', greeting: '' });
  });
});

// The engines' rows (contract engines.ts) name the brain each engine runs; this switch builds it.
describe('each engine row’s brain', () => {
  it('is the kind brainConfig builds for a configured avatar of that engine', () => {
    const config = readAvatarConfig({
      projectId: 'p',
      customData: {
        agent_pipeline_config: {
          llm: { base_url: 'https://llm.example.com/v1', api_key: 'k', model: 'm', assistant_id: 'asst_1' },
          speech_to_speech: { url: 'wss://rt.example.com/v1/realtime', api_key: 'k' },
          third_party: { agent_id: 'agent_0123456789' },
        },
      },
    });
    for (const row of NlpEngines) {
      expect({ engine: row.number, kind: brainConfig({ nlpEngine: row.number, setupMode: 1, config }, null).kind }).toEqual({ engine: row.number, kind: row.brain });
    }
  });
});
