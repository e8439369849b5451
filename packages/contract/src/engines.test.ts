import { describe, expect, it } from 'vitest';
import { AvatarSecretFields, AvatarSecretMessages } from './avatar-secrets.js';
import { EnginesPerMode, NlpEngine, NlpEngineName } from './avatars.js';
import { LlmBaseUrls, RealtimeBaseUrls, RealtimeModels, RealtimeVoices } from './catalog.js';
import { enginesCalling, NlpEngines } from './engines.js';

describe('engine rows', () => {
  it('every number, key and name is unique', () => {
    const unique = (xs: unknown[]) => new Set(xs).size === xs.length;
    expect(unique(NlpEngines.map((r) => r.number))).toBe(true);
    expect(unique(NlpEngines.map((r) => r.key))).toBe(true);
    expect(unique(NlpEngines.map((r) => r.name))).toBe(true);
  });

  it('the enum, the names and the engines per mode are the spec values written before', () => {
    expect(NlpEngine).toEqual({
      EchoTest: 0,
      RestEndpoint: 1,
      DialogflowES: 2,
      DialogflowCX: 3,
      CustomChatGPTPrompt: 6,
      CustomChatGPTAssistant: 7,
      Ten: 8,
      TrulienceRealtime: 9,
      LargeLanguageModel: 10,
      ElevenLabsConversationAI: 11,
      CUSTOM_STT_LLM_TTS: 12,
    });
    expect(NlpEngineName).toEqual({
      0: 'Echo Test',
      1: 'REST Endpoint',
      2: 'Google Dialogflow ES',
      3: 'Google Dialogflow CX',
      6: 'Custom ChatGPT Prompt',
      7: 'Custom ChatGPT Assistant',
      8: 'TEN',
      9: 'Persona Studio Realtime',
      10: 'Large Language Model',
      11: 'ElevenLabs Conversational AI',
      12: 'Custom STT/LLM/TTS',
    });
    expect(EnginesPerMode).toEqual({ 0: [0, 10, 1], 1: [0, 10, 1, 3, 2], 2: [9], 3: [8, 11, 12] });
  });

  it('the enum keeps its literal types', () => {
    const cx: 3 = NlpEngine.DialogflowCX;
    expect(cx).toBe(3);
  });

  it('the engines that call each outbound URL are the ones listed before', () => {
    expect(enginesCalling('llmBaseUrl')).toEqual([6, 7, 10]);
    expect(enginesCalling('restEndpointUrl')).toEqual([1]);
    expect(enginesCalling('realtimeUrl')).toEqual([9]);
    expect(enginesCalling('sttBaseUrl')).toEqual([]);
  });

  it("account_info's LLM and realtime lists are the ones the creator read before", () => {
    expect(LlmBaseUrls).toEqual([
      { name: 'OpenAI', url: 'https://api.openai.com/v1', provider: 'openai' },
      { name: 'Groq', url: 'https://api.groq.com/openai/v1', provider: 'groq' },
      { name: 'Gemini', url: 'https://generativelanguage.googleapis.com/v1beta/openai', provider: 'gemini' },
      { name: 'Cerebras', url: 'https://api.cerebras.ai/v1', provider: null },
      { name: 'DeepSeek', url: 'https://api.deepseek.com/v1', provider: null },
      { name: 'Fireworks', url: 'https://api.fireworks.ai/inference/v1', provider: null },
      { name: 'Perplexity', url: 'https://api.perplexity.ai', provider: null },
      { name: 'Telnyx', url: 'https://api.telnyx.com/v2/ai', provider: null },
      { name: 'Together', url: 'https://api.together.xyz/v1', provider: null },
      { name: 'xAI', url: 'https://api.x.ai/v1', provider: null },
    ]);
    expect(RealtimeBaseUrls).toEqual([
      { name: 'OpenAI', url: 'wss://api.openai.com/v1/realtime' },
      { name: 'Gemini', url: 'wss://generativelanguage.googleapis.com/ws' },
    ]);
    expect(RealtimeVoices).toEqual({
      openai: ['alloy', 'echo', 'shimmer', 'ash', 'ballad', 'coral', 'sage', 'verse'],
      gemini: ['Aoede', 'Charon', 'Fenrir', 'Kore', 'Puck'],
    });
    expect(RealtimeModels).toEqual({ openai: ['gpt-4o-mini-realtime-preview', 'gpt-4o-realtime-preview'], gemini: ['gemini-2.0-flash-exp'] });
  });
});

describe('engine secrets', () => {
  it('the sealed secrets are the ones declared before, bound to the same URLs with the same messages', () => {
    const P = 'customData.agent_pipeline_config';
    const sorted = <T extends { path: string }>(xs: readonly T[]) => [...xs].sort((a, b) => a.path.localeCompare(b.path));
    const engine = AvatarSecretFields.filter((f) => !f.path.startsWith(`${P}.stt.`) && !f.path.startsWith(`${P}.tts.`) && f.path !== 'billingAuthHeader');
    expect(sorted(engine)).toEqual(
      sorted([
        { path: 'jsonKey', boundTo: [], message: '' },
        { path: 'jsonKeyBase64', boundTo: [], message: '' },
        { path: 'restApiKey', boundTo: [{ path: 'restEndPointURL', kind: 'url' }], message: 'REST API Key is required again when the REST Endpoint URL changes' },
        { path: `${P}.llm.api_key`, boundTo: [{ path: `${P}.llm.base_url`, kind: 'url' }], message: 'LLM API Key is required again when the LLM Base URL changes' },
        { path: `${P}.speech_to_speech.api_key`, boundTo: [{ path: `${P}.speech_to_speech.url`, kind: 'url' }], message: 'Realtime API Key is required again when the Realtime URL changes' },
        { path: `${P}.third_party.api_key`, boundTo: [], message: '' },
      ]),
    );
    // The messages are said in the order they were: top-level keys, billing, speech, then the pipeline's keys.
    const said = AvatarSecretFields.map((f) => f.message).filter((m, i, all) => m && all.indexOf(m) === i);
    expect(said).toEqual([
      AvatarSecretMessages.restKeyAgain,
      AvatarSecretMessages.billingHeaderAgain,
      AvatarSecretMessages.sttKeyAgain,
      AvatarSecretMessages.ttsKeyAgain,
      AvatarSecretMessages.ttsSecretAgain,
      AvatarSecretMessages.llmKeyAgain,
      AvatarSecretMessages.realtimeKeyAgain,
    ]);
  });
});
