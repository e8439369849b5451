import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailReason, SpeechMessages as M, SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, validAvatar } from '../../test/factories.js';

// The speech forms' rules (spec section 5 "Speech forms") on the save path: the same messages the
// Brain tab shows, as InvalidOrMissingParams.
let t: TestContext;
let user: Awaited<ReturnType<typeof createSignedInUser>>;
beforeAll(async () => {
  t = await createTestApp();
  user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.ENTERPRISE });
});
afterAll(async () => {
  await t.close();
});

const save = (payload: object) => t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload });

async function composite(pipeline: Record<string, unknown>, agent?: { id: number; version: number }) {
  const base = agent ?? (await save(validAvatar())).json().agent;
  // Composite with the echo engine: no engine settings of its own (engine-validation.ts checks those).
  return save(validAvatar({ id: base.id, version: base.version, setupMode: 1, nlpEngine: 0, customData: { agent_pipeline_config: pipeline } }));
}

function expectRefused(res: Awaited<ReturnType<typeof save>>, errors: string[]) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams });
  expect(res.json().errors).toEqual(errors);
}

describe('speech rules on save', () => {
  it('refuses each STT provider without what it needs', async () => {
    expectRefused(await composite({ stt: { provider: 2, languages: 'en-US' } }), [M.azureSttKeyRequired, M.sttRegionRequired]);
    expectRefused(await composite({ stt: { provider: 1, languages: 'en-US', api_key: '{"not":"a key"}' } }), [M.googleKeyInvalid, M.sttRegionRequired]);
    expectRefused(await composite({ stt: { provider: 3, languages: '' } }), [M.sttLanguageRequired, M.deepgramKeyRequired]);
    expectRefused(await composite({ stt: { provider: 3, languages: 'multi', api_key: 'dg-key', endpointing: 0 } }), [M.deepgramEndpoint]);
    expectRefused(await composite({ stt: { provider: 3, languages: 'multi', api_key: 'dg-key', endpointing: '2.5' } }), [M.deepgramEndpoint]);
    expectRefused(await composite({ stt: { provider: 'whisper', languages: 'en' } }), [M.sttProviderRequired]);
    const eleven = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-PT', 'pl-PL', 'sv-SE', 'da-DK', 'fi-FI', 'nb-NO'].join(',');
    expectRefused(await composite({ stt: { provider: 2, languages: eleven, api_key: 'k', region: 'eastus' } }), [M.maxLanguages]);
    // The product's own STT is not checked (spec: skipped for default STT).
    expect((await composite({ stt: { provider: 0, languages: eleven } })).statusCode).toBe(200);
  });

  it('refuses each TTS provider without its keys, region, voice, language or a speed within -1…1', async () => {
    expectRefused(await composite({ tts: { provider: 0, voice_id: 'Joanna (neural)' } }), [M.pollyAccessKeyRequired, M.pollySecretKeyRequired, M.ttsRegionRequired]);
    expectRefused(await composite({ tts: { provider: 1, voice_id: 'en-US-JennyNeural' } }), [M.speedRequired, M.azureTtsKeyRequired, M.ttsRegionRequired]);
    expectRefused(await composite({ tts: { provider: 2, voice_id: 'rachel', speed: 3 } }), [M.speedRange, M.elevenLabsKeyRequired]);
    expectRefused(await composite({ tts: { provider: 5, api_key: 'c-key' } }), [M.voiceRequired]);
    expectRefused(await composite({ tts: { provider: 6, voice_id: 'v', speed: 1 } }), [M.neuphonicKeyRequired, M.neuphonicLanguageRequired]);
  });

  it('keeps a stored key when the form sends its mask, and accepts complete speech settings', async () => {
    const first = await composite({
      stt: { provider: 3, languages: 'multi', api_key: 'dg-secret-key-123456', model: 'nova-3-general', endpointing: 300 },
      tts: { provider: 1, api_key: 'azure-secret-key-9876', region: 'eastus', voice_id: 'en-US-JennyNeural', speed: 0 },
    });
    expect(first.statusCode, first.body).toBe(200);
    const agent = first.json().agent;
    const stored = agent.customData.agent_pipeline_config;
    expect(stored.stt.api_key).toBe('••••3456');
    expect(stored.tts.api_key).toBe('••••9876');
    // Saved again as the editor sends it back: masks stand for the stored keys, so nothing is missing.
    const again = await composite(stored, agent);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().agent.customData.agent_pipeline_config.tts.api_key).toBe('••••9876');
    // Clearing a key (provider change in the form) is refused while the provider needs it.
    expectRefused(await composite({ ...stored, tts: { ...stored.tts, api_key: '' } }, again.json().agent), [M.azureTtsKeyRequired]);
  });

  it('skips STT in Simple mode and the key checks of the product’s voices; speech settings of other modes are not checked', async () => {
    const { agent } = (await save(validAvatar())).json();
    const simple = await save(validAvatar({ id: agent.id, version: agent.version, customData: { agent_pipeline_config: { stt: { provider: 2 }, tts: { provider: 3, default_tts: 'polly', voice_id: 'Joanna (neural)' } } } }));
    expect(simple.statusCode, simple.body).toBe(200);
    const noVoice = await save(validAvatar({ id: agent.id, version: simple.json().agent.version, customData: { agent_pipeline_config: { tts: { provider: 3 } } } }));
    expectRefused(noVoice, [M.voiceRequired]);
    const s2s = await save(
      validAvatar({ id: agent.id, version: simple.json().agent.version, setupMode: 2,
        nlpEngine: 9,
        customData: {
          agent_pipeline_config: {
            speech_to_speech: { url: 'wss://api.openai.com/v1/realtime', api_key: 'sk-realtime-key', model: 'gpt-4o-realtime-preview', voice_id: 'alloy' },
            stt: { provider: 2 },
            tts: { provider: 1 },
          },
        },
      }),
    );
    expect(s2s.statusCode, s2s.body).toBe(200);
  });
});
