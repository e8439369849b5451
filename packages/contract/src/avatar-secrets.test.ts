import { describe, expect, it } from 'vitest';
import { AvatarSecretMessages as M, secretsNeededAgain } from './avatar-secrets.js';

// The rule of issue 26, item 4 alone: which kept secrets a save would send somewhere else.
const P = (p: Record<string, unknown>) => ({ customData: { agent_pipeline_config: p } });
const sealed = 'sealed:v1:…';
const mask = '••••6789';

describe('secretsNeededAgain', () => {
  it.each([
    ['a new LLM base URL with the mask', P({ llm: { api_key: sealed, base_url: 'https://api.openai.com/v1' } }), P({ llm: { api_key: mask, base_url: 'https://evil.example/v1' } }), [M.llmKeyAgain]],
    ['the same URL written differently', P({ llm: { api_key: sealed, base_url: 'https://api.openai.com/v1' } }), P({ llm: { api_key: mask, base_url: ' HTTPS://API.OPENAI.COM/v1/ ' } }), []],
    ['a new URL with a new key', P({ llm: { api_key: sealed, base_url: 'https://a.example/v1' } }), P({ llm: { api_key: 'sk-new', base_url: 'https://b.example/v1' } }), []],
    ['a new URL and no key stored', P({ llm: { base_url: 'https://a.example/v1' } }), P({ llm: { api_key: mask, base_url: 'https://b.example/v1' } }), []],
    ['the key left out, URL changed', { restApiKey: sealed, restEndPointURL: 'https://a.example' }, { restEndPointURL: 'https://b.example' }, [M.restKeyAgain]],
    ['the URL left out (not in the save)', { restApiKey: sealed, restEndPointURL: 'https://a.example' }, { restApiKey: mask }, []],
    ['the STT provider by name for the same number', P({ stt: { api_key: sealed, provider: 2 } }), P({ stt: { api_key: mask, provider: 'azure' } }), []],
    ['another STT provider', P({ stt: { api_key: sealed, provider: 2 } }), P({ stt: { api_key: mask, provider: 3 } }), [M.sttKeyAgain]],
    ['Polly to Azure: both TTS secrets', P({ tts: { api_key: sealed, secret_key: sealed, provider: 0 } }), P({ tts: { api_key: mask, secret_key: mask, provider: 1 } }), [M.ttsKeyAgain, M.ttsSecretAgain]],
    ['a new realtime URL', P({ speech_to_speech: { api_key: sealed, url: 'wss://a.example/rt' } }), P({ speech_to_speech: { api_key: mask, url: 'wss://b.example/rt' } }), [M.realtimeKeyAgain]],
    ['a new billing URL', { billingAuthHeader: sealed, billingAuthURL: 'https://a.example/b' }, { billingAuthHeader: mask, billingAuthURL: 'https://b.example/b' }, [M.billingHeaderAgain]],
  ])('%s', (_name, stored, incoming, expected) => {
    expect(secretsNeededAgain(stored, incoming)).toEqual(expected);
  });
});
