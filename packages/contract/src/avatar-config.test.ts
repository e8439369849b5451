import { describe, expect, expectTypeOf, it } from 'vitest';
import { readAvatarConfig, ZAvatarConfig, type TAvatarConfig } from './avatar-config.js';
import { SttProvider, TtsProvider, ZAgentPipelineConfig } from './avatars.js';
import { FillerOptions, RealtimeVadDefaults } from './catalog.js';
import { LiveSpeechDefaults } from './live/session-speech.js';

/** What an avatar with nothing stored reads as. */
const EMPTY: TAvatarConfig = {
  access: {
    encKeyId: null,
    oauthAppId: null,
    allowedOrigins: [],
    billingAuthUrl: null,
    billingAuthHeader: '',
    billingPingSeconds: 30,
    dailyLimitPerSession: -1,
    dailyLimitPerIp: -1,
    demoSeconds: -1,
    idleTimeoutSeconds: 300,
  },
  session: { wakeUpMessage: '', sendChatHistory: false, permissions: 0, transcriptionStreaming: false, summaryEnabled: false, fillers: [] },
  page: { photoUrl: null, avatarConfigUrl: null, clientConfigUrl: null, avatarJson: '', clientJson: '' },
  brain: {
    llm: { baseUrl: '', apiKey: '', model: '', instructions: '', assistantId: '', maxTokens: null },
    rest: { url: '', apiKey: '', customText: '', agentLanguage: '' },
    dialogflow: { projectId: '', agentId: '', regionId: '', agentLanguage: '', jsonKey: '', jsonKeyBase64: '' },
    realtime: {
      url: '',
      apiKey: '',
      model: '',
      voice: '',
      instructions: '',
      greeting: '',
      vad: { threshold: RealtimeVadDefaults.threshold, prefixPaddingMs: RealtimeVadDefaults.prefix_padding_ms, silenceDurationMs: RealtimeVadDefaults.silence_duration_ms },
    },
    thirdParty: { agentId: '', apiKey: '', isPublic: false, connectionType: 'webrtc' },
  },
  speech: { withKeys: LiveSpeechDefaults, withoutKeys: LiveSpeechDefaults },
  speechBaseUrls: { stt: '', tts: '' },
  functionIds: [],
  collectionIds: [],
  wordsPerSecond: 3,
};

/** Every field of the document with a value of the wrong kind. */
const WRONG_TYPES = {
  encKeyId: '12',
  oauthEnabled: 'yes',
  partnerOauthAppId: {},
  allowedOrigins: 'https://a.example',
  billingAuthURL: 42,
  billingAuthHeader: ['x'],
  billingAuthPingTime: 'often',
  dailyLimitPerSession: null,
  dailyLimitPerIP: 'none',
  dailyLimits: [60],
  idleTimeout: {},
  wakeUpMessage: 7,
  sendChatHistory: 'true',
  permissions: '2',
  avatarPhotoURL: 1,
  avatarConfigURL: {},
  clientConfigURL: false,
  avatarJson: { ParentConfig: 'x' },
  clientJson: 1,
  functions: { 0: 1 },
  restEndPointURL: 1,
  jsonKey: {},
  customData: {
    transcriptionStreaming: 1,
    summaryEnabled: 'no',
    words_per_sec: 'fast',
    collection_ids: '3',
    agent_pipeline_config: { llm: 'gpt', stt: [], tts: 5, speech_to_speech: null, vad_options: 'on', third_party: [{ agent_id: 'a' }] },
  },
};

describe('readAvatarConfig', () => {
  it('reads nothing stored, and anything that is not a document, as the defaults', () => {
    for (const stored of [{}, null, undefined, 'config', 42, [], [{ wakeUpMessage: 'hi' }], { customData: null }, { customData: { agent_pipeline_config: [] } }]) {
      expect(readAvatarConfig(stored)).toEqual(EMPTY);
    }
  });

  it('never throws, and its answer is always a ZAvatarConfig', () => {
    const rows: unknown[] = [WRONG_TYPES, { customData: WRONG_TYPES }, { ...WRONG_TYPES, customData: 'x' }, Object.create(null), { allowedOrigins: [null, 1, {}, 'x'.repeat(3000)] }];
    for (const stored of rows) {
      expect(() => ZAvatarConfig.parse(readAvatarConfig(stored))).not.toThrow();
    }
    // Values of the wrong kind read as if missing.
    expect(readAvatarConfig(WRONG_TYPES)).toEqual(EMPTY);
  });

  it('access: numbers also from numeric strings; limits above 0 or -1; the idle timeout within 1…600', () => {
    const { access } = readAvatarConfig({
      encKeyId: 4,
      oauthEnabled: 1,
      partnerOauthAppId: '17',
      billingAuthURL: '  https://billing.example/check  ',
      billingAuthHeader: ' Bearer x ',
      billingAuthPingTime: '0.2',
      dailyLimitPerSession: '600',
      dailyLimitPerIP: 0,
      dailyLimits: { Demo: -5 },
      idleTimeout: 9000,
      allowedOrigins: ['https://shop.example/path?q=1', 'ftp://x.example', 'not a url', 'http://localhost:8080'],
    });
    expect(access).toEqual({
      encKeyId: 4,
      oauthAppId: 17,
      allowedOrigins: ['https://shop.example', 'http://localhost:8080'],
      billingAuthUrl: 'https://billing.example/check',
      billingAuthHeader: ' Bearer x ',
      billingPingSeconds: 1,
      dailyLimitPerSession: 600,
      dailyLimitPerIp: -1,
      demoSeconds: -1,
      idleTimeoutSeconds: 600,
    });
    expect(readAvatarConfig({ oauthEnabled: true, partnerOauthAppId: 9 }).access.oauthAppId).toBe(9);
    expect(readAvatarConfig({ oauthEnabled: 0, partnerOauthAppId: 9 }).access.oauthAppId).toBeNull();
    expect(readAvatarConfig({ oauthEnabled: 1, partnerOauthAppId: 'abc' }).access.oauthAppId).toBeNull();
    expect(readAvatarConfig({ idleTimeout: -3 }).access.idleTimeoutSeconds).toBe(300);
    expect(readAvatarConfig({ idleTimeout: '45.4' }).access.idleTimeoutSeconds).toBe(45);
    expect(readAvatarConfig({ allowedOrigins: Array.from({ length: 30 }, (_, i) => `https://s${i}.example`) }).access.allowedOrigins).toHaveLength(20);
  });

  it('links: only positive whole numbers are ids', () => {
    const config = readAvatarConfig({ functions: [3, '4', -1, 2.5, null, 7], customData: { collection_ids: [10, '11', 0, 12] } });
    expect(config.functionIds).toEqual([3, 7]);
    expect(config.collectionIds).toEqual([10, 12]);
  });

  it('session: flags only when true; memory needs the avatar’s switch (default on) and the LLM’s', () => {
    const read = (customData: unknown) => readAvatarConfig({ customData }).session.summaryEnabled;
    expect(read({ agent_pipeline_config: { llm: { summary_enabled: true } } })).toBe(true);
    expect(read({ summaryEnabled: false, agent_pipeline_config: { llm: { summary_enabled: true } } })).toBe(false);
    expect(read({ summaryEnabled: true, agent_pipeline_config: { llm: { summary_enabled: 'true' } } })).toBe(false);
    const session = readAvatarConfig({ wakeUpMessage: ' Hello! ', sendChatHistory: true, permissions: 3, customData: { transcriptionStreaming: true } }).session;
    expect(session).toEqual({ wakeUpMessage: ' Hello! ', sendChatHistory: true, permissions: 3, transcriptionStreaming: true, summaryEnabled: false, fillers: [] });
  });

  it('fillers (ADR 100): off unless enabled is true; trimmed lines of 1…80 characters, the first 10; none readable: the defaults', () => {
    const read = (fillers: unknown) => readAvatarConfig({ customData: { agent_pipeline_config: { fillers } } }).session.fillers;
    expect(read(undefined)).toEqual([]);
    expect(read({ phrases: ['One moment.'] })).toEqual([]);
    expect(read({ enabled: 'true', phrases: ['One moment.'] })).toEqual([]);
    expect(read({ enabled: true, phrases: [' One moment. ', '', 7, 'x'.repeat(81), 'Let me see.'] })).toEqual(['One moment.', 'Let me see.']);
    expect(read({ enabled: true })).toEqual([...FillerOptions.phrases]);
    expect(read({ enabled: true, phrases: 'One moment.' })).toEqual([...FillerOptions.phrases]);
    expect(read({ enabled: true, phrases: Array.from({ length: 15 }, (_, i) => `Line ${i}.`) })).toHaveLength(10);
  });

  it('fillers on save: at most 10 lines of 1…80 characters (ZAgentPipelineConfig)', () => {
    const parse = (fillers: unknown) => ZAgentPipelineConfig.safeParse({ fillers }).success;
    expect(parse({ enabled: true, phrases: ['One moment.', 'Let me check that.'] })).toBe(true);
    expect(parse({ enabled: false })).toBe(true);
    expect(parse({ enabled: 'yes' })).toBe(false);
    expect(parse({ enabled: true, phrases: ['  '] })).toBe(false);
    expect(parse({ enabled: true, phrases: ['x'.repeat(81)] })).toBe(false);
    expect(parse({ enabled: true, phrases: Array.from({ length: 11 }, () => 'One moment.') })).toBe(false);
  });

  it('page: URLs and documents as stored, none when empty', () => {
    expect(readAvatarConfig({ avatarPhotoURL: '', avatarConfigURL: 'https://cdn.example/a.json', clientJson: '{"a":1}' }).page).toEqual({
      photoUrl: null,
      avatarConfigUrl: 'https://cdn.example/a.json',
      clientConfigUrl: null,
      avatarJson: '',
      clientJson: '{"a":1}',
    });
  });

  it('brain: strings trimmed; max tokens a whole number in 1…1 000 000; realtime VAD within range', () => {
    const { brain } = readAvatarConfig({
      restEndPointURL: ' https://rest.example/chat ',
      agentLanguage: 'de',
      jsonKeyBase64: ' eyJ9 ',
      customData: {
        agent_pipeline_config: {
          llm: { base_url: ' https://llm.example/v1 ', api_key: ' sk ', model: 'm', max_tokens: '256', custom_text: ' ctx ' },
          speech_to_speech: { url: 'wss://rt.example', voice_id: ' verse ' },
          vad_options: { threshold: '0.7', prefix_padding_ms: 20_000, silence_duration_ms: '650.6' },
          third_party: { agent_id: ' agent_1 ', is_public: 'yes', connection_type: 'websocket' },
        },
      },
    });
    expect(brain.llm).toEqual({ baseUrl: 'https://llm.example/v1', apiKey: 'sk', model: 'm', instructions: '', assistantId: '', maxTokens: 256 });
    expect(brain.rest).toEqual({ url: 'https://rest.example/chat', apiKey: '', customText: 'ctx', agentLanguage: 'de' });
    expect(brain.dialogflow).toMatchObject({ agentLanguage: 'de', jsonKeyBase64: 'eyJ9' });
    expect(brain.realtime).toMatchObject({ url: 'wss://rt.example', voice: 'verse', vad: { threshold: 0.7, prefixPaddingMs: RealtimeVadDefaults.prefix_padding_ms, silenceDurationMs: 651 } });
    expect(brain.thirdParty).toEqual({ agentId: 'agent_1', apiKey: '', isPublic: false, connectionType: 'websocket' });
    for (const maxTokens of [0, -1, 2.5, '1e9', 'many', 1_000_001]) {
      expect(readAvatarConfig({ customData: { agent_pipeline_config: { llm: { max_tokens: maxTokens } } } }).brain.llm.maxTokens).toBeNull();
    }
  });

  it('speech: read by readLiveSpeech, with the keys and without; the stored endpoints whatever the provider', () => {
    const config = readAvatarConfig({
      customData: {
        agent_pipeline_config: {
          stt: { provider: 'azure', api_key: 'stt-key', region: 'eastus', base_url: ' https://stt.example/v1 ' },
          tts: { provider: 0, api_key: 'polly-id', secret_key: 'polly-secret', base_url: 'https://tts.example/v1' },
        },
      },
    });
    expect(config.speech.withKeys.stt).toMatchObject({ provider: SttProvider.Azure, apiKey: 'stt-key' });
    expect(config.speech.withKeys.tts).toMatchObject({ provider: TtsProvider.Polly, apiKey: 'polly-id', secretKey: 'polly-secret' });
    expect(JSON.stringify(config.speech.withoutKeys)).not.toMatch(/stt-key|polly-id|polly-secret/);
    expect(config.speechBaseUrls).toEqual({ stt: 'https://stt.example/v1', tts: 'https://tts.example/v1' });
  });

  it('the words per second of the editor: a number, 3 when unreadable', () => {
    expect(readAvatarConfig({ customData: { words_per_sec: '4.5' } }).wordsPerSecond).toBe(4.5);
    expect(readAvatarConfig({ customData: { words_per_sec: null } }).wordsPerSecond).toBe(3);
  });

  it('types: typed values, not unknown', () => {
    const config = readAvatarConfig({});
    expectTypeOf(config.access.encKeyId).toEqualTypeOf<number | null>();
    expectTypeOf(config.access.allowedOrigins).toEqualTypeOf<string[]>();
    expectTypeOf(config.brain.llm.maxTokens).toEqualTypeOf<number | null>();
    expectTypeOf(config.brain.thirdParty.connectionType).toEqualTypeOf<'webrtc' | 'websocket'>();
    expectTypeOf(config.page.photoUrl).toEqualTypeOf<string | null>();
    expectTypeOf(config.functionIds).toEqualTypeOf<number[]>();
  });
});
