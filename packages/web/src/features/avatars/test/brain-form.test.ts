import { describe, expect, it } from 'vitest';
import { EngineMessages as M, NlpEngine, ProviderLookupMessages as L, SimpleModeLlmModels, SttProvider, TtsProvider } from '@persona/contract';
import { applyBrainValues, brainIssues, brainValuesOf, GROQ, OPENAI, showsInteractionType, withBaseUrl, withEngine, withSetupMode, type BrainValues } from '../lib/brain-form';
import { agentCheckMessage, showsAgentKey } from '../lib/brain-agent-check';
import { agent } from './fixtures';

// Spec section 4 (engine, base URL, mode changes, third-party agent check) and 5 ("Engine forms").
const saved = (over: Parameters<typeof agent>[0] = {}) => brainValuesOf(agent(over));
const llmAgent = () =>
  saved({
    nlpEngine: 10,
    setupMode: 1,
    customData: {
      transcriptionStreaming: false,
      words_per_sec: 3,
      summaryEnabled: true,
      collection_ids: [],
      agent_pipeline_config: { llm: { provider: 'openai', base_url: OPENAI.url, api_key: '••••1234', model: 'gpt-4o', instructions: 'Be brief.', summary_enabled: true }, stt: { provider: 3 }, tts: { provider: 2 } },
    },
  } as never);
const paths = (values: BrainValues, realtime = false) => Object.fromEntries(brainIssues(values, realtime).map((i) => [i.path, i.message]));

describe('engine change', () => {
  it('Echo sets the provider to echo', () => {
    expect(withEngine(llmAgent(), NlpEngine.EchoTest).llmDetails.llmProvider).toBe('echo');
  });
  it('LLM defaults to the Groq base URL and provider, clearing model and key', () => {
    const next = withEngine(llmAgent(), NlpEngine.LargeLanguageModel).llmDetails;
    expect(next).toMatchObject({ url: GROQ.url, llmProvider: 'groq', llmModel: '', llmAPIKey: '' });
  });
  it('TEN sets provider none, and TEN and realtime set STT and TTS to None', () => {
    const ten = withEngine(llmAgent(), NlpEngine.Ten);
    expect(ten.llmDetails.llmProvider).toBe('none');
    expect([ten.sttDetails.sttProvider, ten.ttsDetails.ttsProvider]).toEqual([SttProvider.None, TtsProvider.None]);
    const rt = withEngine(llmAgent(), NlpEngine.TrulienceRealtime);
    expect([rt.sttDetails.sttProvider, rt.ttsDetails.ttsProvider]).toEqual([SttProvider.None, TtsProvider.None]);
  });
});

describe('LLM base URL change', () => {
  it('clears model, key and assistant, resets the interaction type and derives the provider', () => {
    const start = { ...llmAgent(), llmDetails: { ...llmAgent().llmDetails, interactionType: 'assistant' as const, llmAssistantId: 'asst_1' } };
    const next = withBaseUrl(start, 'https://generativelanguage.googleapis.com/v1beta/openai').llmDetails;
    expect(next).toMatchObject({ llmProvider: 'gemini', llmModel: '', llmAPIKey: '', llmAssistantId: '', interactionType: 'prompt' });
    expect(withBaseUrl(start, 'https://api.together.xyz/v1').llmDetails.llmProvider).toBe('custom');
    expect(withBaseUrl(start, 'https://llm.example.com/v1').llmDetails.llmProvider).toBe('custom');
  });
  it('Simple mode forces Groq and picks the first model', () => {
    const simple = { ...llmAgent(), setupMode: 0 as const };
    expect(withBaseUrl(simple, OPENAI.url).llmDetails).toMatchObject({ url: GROQ.url, llmProvider: 'groq', llmModel: SimpleModeLlmModels[0] });
  });
  it('shows the interaction type only for Composite, non-realtime, OpenAI base URL', () => {
    const v = llmAgent();
    expect(showsInteractionType(v, false)).toBe(true);
    expect(showsInteractionType(v, true)).toBe(false);
    expect(showsInteractionType({ ...v, setupMode: 0 }, false)).toBe(false);
    expect(showsInteractionType(withBaseUrl(v, GROQ.url), false)).toBe(false);
  });
});

describe('setup mode change', () => {
  it('resets every detail to the saved avatar and clears the model when the mode differs', () => {
    const stored = llmAgent();
    const edited = { ...stored, llmDetails: { ...stored.llmDetails, llmPrompt: 'changed', llmModel: 'other' }, restEndpoint: { ...stored.restEndpoint, base_url: 'https://x' } };
    const same = withSetupMode(stored, edited, 1);
    expect(same.llmDetails).toEqual(stored.llmDetails);
    expect(same.restEndpoint.base_url).toBe('');
    const other = withSetupMode(stored, edited, 0);
    // Simple: Groq and its first model.
    expect(other.llmDetails).toMatchObject({ llmPrompt: 'Be brief.', url: GROQ.url, llmModel: SimpleModeLlmModels[0] });
  });
  it('selects the first engine of the mode when the engine is not offered there', () => {
    const stored = llmAgent();
    expect(withSetupMode(stored, stored, 2).nlpEngine).toBe(NlpEngine.TrulienceRealtime);
    expect(withSetupMode(stored, stored, 3).nlpEngine).toBe(NlpEngine.Ten);
    expect(withSetupMode(stored, { ...stored, nlpEngine: NlpEngine.DialogflowCX }, 0).nlpEngine).toBe(NlpEngine.EchoTest);
    expect(withSetupMode(stored, stored, 2).sttDetails.sttProvider).toBe(SttProvider.None);
  });
});

describe('third-party agent ID check', () => {
  it('says which key problem it is, and shows the key only for private or invalid_api_key', () => {
    expect(agentCheckMessage('invalid_api_key', '')).toBe(L.agentKeyRequired);
    expect(agentCheckMessage('invalid_api_key', 'short')).toBe(L.agentKeyRequired);
    expect(agentCheckMessage('invalid_api_key', 'sk_0123456789abcdef')).toBe(L.agentKeyInvalid);
    expect(agentCheckMessage('invalid_agent_id', '', 'Agent ID not found')).toBe(L.agentNotFound);
    expect(agentCheckMessage('invalid_agent_id', '')).toBe(L.agentInvalid);
    expect(agentCheckMessage('public', '')).toBe('');
    expect(['idle', 'checking', 'public', 'private', 'invalid_agent_id', 'invalid_api_key'].filter((s) => showsAgentKey(s as never))).toEqual(['private', 'invalid_api_key']);
  });
});

describe('engine form messages', () => {
  it('LLM: model, base URL, key (not in Simple), assistant, max tokens', () => {
    const v = withEngine(llmAgent(), NlpEngine.LargeLanguageModel);
    expect(paths({ ...v, llmDetails: { ...v.llmDetails, url: '' } })).toMatchObject({ 'llmDetails.url': M.llmUrlRequired, 'llmDetails.llmModel': M.llmModelRequired, 'llmDetails.llmAPIKey': M.llmKeyRequired });
    expect(paths({ ...v, setupMode: 0 })['llmDetails.llmAPIKey']).toBeUndefined();
    const assistant = { ...llmAgent(), llmDetails: { ...llmAgent().llmDetails, interactionType: 'assistant' as const } };
    expect(paths(assistant)['llmDetails.llmAssistantId']).toBe(M.assistantRequired);
    expect(paths(assistant, true)['llmDetails.llmAssistantId']).toBeUndefined();
    for (const bad of ['0', '-3', '2.5', 'ten']) expect(paths({ ...llmAgent(), llmDetails: { ...llmAgent().llmDetails, llmMaxTokens: bad } })['llmDetails.llmMaxTokens']).toBe(M.maxTokens);
    expect(paths({ ...llmAgent(), llmDetails: { ...llmAgent().llmDetails, llmMaxTokens: '512' } })).toEqual({});
  });
  it('REST, Dialogflow ES/CX and Realtime', () => {
    const rest = withEngine(saved(), NlpEngine.RestEndpoint);
    expect(paths(rest)).toEqual({ 'restEndpoint.base_url': M.restUrlRequired, 'restEndpoint.api_key': M.restKeyRequired });
    expect(paths({ ...rest, restEndpoint: { ...rest.restEndpoint, base_url: 'nope', api_key: 'k' } })).toEqual({ 'restEndpoint.base_url': M.notAValidUrl });
    const cx = { ...withEngine(saved(), NlpEngine.DialogflowCX), setupMode: 1 as const };
    expect(paths(cx)).toEqual({
      'dialogFlow.project_id': M.dialogflowProjectRequired,
      'dialogFlow.api_key': M.dialogflowKeyRequired,
      'dialogFlow.agent_id': M.dialogflowAgentRequired,
      'dialogFlow.region_id': M.dialogflowRegionRequired,
    });
    expect(paths({ ...cx, nlpEngine: NlpEngine.DialogflowES, dialogFlow: { ...cx.dialogFlow, project_id: 'p', api_key: '{"a":1}' } })).toEqual({ 'dialogFlow.api_key': M.dialogflowKeyInvalid });
    const rt = withSetupMode(saved(), saved(), 2);
    expect(paths(rt)).toEqual({ 'trulienceRealtime.api_key': M.realtimeKeyRequired, 'trulienceRealtime.model': M.realtimeModelRequired, 'trulienceRealtime.voice_id': M.realtimeVoiceRequired });
  });
  it('Dialogflow: a key text the save refuses is refused by the form too', () => {
    // The save sends the key text as the form holds it and the server parses it untrimmed: a
    // text JSON.parse refuses (a byte-order mark or a no-break space before it) is refused here too.
    const es = { ...withEngine(saved(), NlpEngine.DialogflowES), setupMode: 1 as const };
    const key = JSON.stringify({ client_email: 'a@b.c', private_key: 'k' });
    for (const text of [`\uFEFF${key}`, `\u00A0${key}`]) {
      expect(paths({ ...es, dialogFlow: { ...es.dialogFlow, project_id: 'p', api_key: text } })).toEqual({ 'dialogFlow.api_key': M.dialogflowKeyInvalid });
    }
  });
  it('ElevenLabs: required, too short while idle, invalid, key required or invalid', () => {
    const el = withSetupMode(saved(), saved(), 3);
    const e = (over: Partial<BrainValues['elevenLabsConversationAI']>) => paths({ ...el, nlpEngine: NlpEngine.ElevenLabsConversationAI, elevenLabsConversationAI: { ...el.elevenLabsConversationAI, ...over } });
    expect(e({ agent_id: '' })).toEqual({ 'elevenLabsConversationAI.agent_id': M.agentIdRequired });
    expect(e({ agent_id: 'agent_1', status: 'idle' })).toEqual({ 'elevenLabsConversationAI.agent_id': M.agentIdTooShort });
    expect(e({ agent_id: 'agent_0123456789', status: 'invalid_agent_id' })).toEqual({ 'elevenLabsConversationAI.agent_id': M.agentIdInvalid });
    expect(e({ agent_id: 'agent_0123456789', status: 'invalid_api_key', api_key: '' })).toEqual({ 'elevenLabsConversationAI.api_key': M.agentKeyRequired });
    expect(e({ agent_id: 'agent_0123456789', status: 'invalid_api_key', api_key: 'sk_wrong_wrong_wrong' })).toEqual({ 'elevenLabsConversationAI.api_key': M.agentKeyInvalid });
    expect(e({ agent_id: 'agent_0123456789', status: 'private', api_key: '' })).toEqual({ 'elevenLabsConversationAI.api_key': M.agentKeyRequired });
    expect(e({ agent_id: 'agent_0123456789', status: 'public' })).toEqual({});
  });
});

describe('saving', () => {
  it('writes the engine group and the fields the runtime reads, masks stay masks, the assistant runs as engine 7', () => {
    const v = { ...llmAgent(), llmDetails: { ...llmAgent().llmDetails, interactionType: 'assistant' as const, llmAssistantId: 'asst_9', llmMaxTokens: '300' } };
    const out = applyBrainValues({ nlpEngine: 10, customData: { summaryEnabled: true, agent_pipeline_config: { vad_options: { threshold: 0.5 } } } }, v, false);
    expect(out.nlpEngine).toBe(NlpEngine.CustomChatGPTAssistant);
    const cd = out.customData as { agent_pipeline_config: Record<string, Record<string, unknown>> };
    expect(cd.agent_pipeline_config.llm).toMatchObject({ provider: 'openai', api_key: '••••1234', assistant_id: 'asst_9', max_tokens: 300, summary_enabled: true, model: 'gpt-4o' });
    expect(cd.agent_pipeline_config.vad_options).toEqual({ threshold: 0.5 });
    const rest = applyBrainValues({}, { ...withEngine(saved(), NlpEngine.RestEndpoint), restEndpoint: { base_url: 'https://r.example', api_key: 'k1', custom_text: 'c', summary_enabled: false, agent_language: 'de' } }, false);
    expect(rest).toMatchObject({ restEndPointURL: 'https://r.example', restApiKey: 'k1', agentLanguage: 'de' });
    const el = withSetupMode(saved(), saved(), 3);
    const eleven = applyBrainValues({}, { ...el, nlpEngine: NlpEngine.ElevenLabsConversationAI, elevenLabsConversationAI: { agent_id: 'agent_0123456789', api_key: 'stale', connection_type: 'websocket', status: 'public' } }, false);
    expect((eleven.customData as { agent_pipeline_config: { third_party: unknown } }).agent_pipeline_config.third_party).toEqual({ agent_id: 'agent_0123456789', api_key: '', is_public: true, connection_type: 'websocket' });
  });
  it('reads connection type webrtc by default and websocket when saved', () => {
    expect(saved().elevenLabsConversationAI.connection_type).toBe('webrtc');
    const ws = saved({ customData: { agent_pipeline_config: { third_party: { agent_id: 'a', connection_type: 'websocket' } } } } as never);
    expect(ws.elevenLabsConversationAI.connection_type).toBe('websocket');
  });
});
