import { describe, expect, it } from 'vitest';
import { AvatarSecretFields, AvatarSecretMessages } from './avatar-secrets.js';
import { SttDefaults, SttProviderList, TtsProviderList } from './catalog.js';
import {
  ownProviderMenu,
  ProviderNames,
  providerNumber,
  providerSecretFields,
  SpeechMessages,
  SttProvider,
  SttProviders,
  TtsProvider,
  TtsProviders,
  type TProviderRow,
} from './providers.js';
import { checkSpeechConfig } from './speech.js';
import { ProviderLookupLimits, ZTtsVoicesRequest } from './provider-lookups.js';
import { NeuphonicLanguages, SpeechRegionPatterns, SpeechRegions, TtsLookupKeyNames, ttsLookupFields } from './providers.js';

const kinds: [string, readonly TProviderRow[]][] = [
  ['stt', SttProviders],
  ['tts', TtsProviders],
];

describe('provider rows', () => {
  it.each(kinds)('%s: every number, id, key and name is unique', (_kind, rows) => {
    const unique = (xs: unknown[]) => new Set(xs).size === xs.length;
    expect(unique(rows.map((r) => r.number))).toBe(true);
    expect(unique(rows.map((r) => r.id))).toBe(true);
    expect(unique(rows.map((r) => r.key))).toBe(true);
    expect(unique(rows.flatMap((r) => [r.id, ...r.aliases].map((n) => n.toLowerCase())))).toBe(true);
  });

  it('the enums are the spec numbers (avatar creator spec "Enumerations")', () => {
    expect(SttProvider).toEqual({ Default: 0, Google: 1, Azure: 2, Deepgram: 3, None: 4 });
    expect(TtsProvider).toEqual({ Polly: 0, Azure: 1, ElevenLabs: 2, Default: 3, None: 4, Cartesia: 5, Neuphonic: 6 });
  });

  it('the names a stored config may carry are the ones read before', () => {
    expect(ProviderNames.stt).toEqual({ default: 0, google: 1, azure: 2, deepgram: 3, none: 4 });
    expect(ProviderNames.tts).toEqual({ polly: 0, amazon: 0, azure: 1, microsoft: 1, elevenlabs: 2, default: 3, none: 4, cartesia: 5, neuphonic: 6 });
  });

  it('aliases, ids, digits and numbers resolve; unknown names are NaN; absent is undefined', () => {
    expect(providerNumber('Amazon', 'tts')).toBe(TtsProvider.Polly);
    expect(providerNumber(' microsoft ', 'tts')).toBe(TtsProvider.Azure);
    expect(providerNumber('CARTESIA', 'tts')).toBe(TtsProvider.Cartesia);
    expect(providerNumber('6', 'tts')).toBe(6);
    expect(providerNumber(3, 'stt')).toBe(SttProvider.Deepgram);
    expect(providerNumber('deepgram', 'stt')).toBe(3);
    // Azure's alias is a TTS name only.
    expect(providerNumber('microsoft', 'stt')).toBeNaN();
    expect(providerNumber('whisper', 'stt')).toBeNaN();
    expect(providerNumber(1.5, 'tts')).toBeNaN();
    expect(providerNumber('', 'tts')).toBeUndefined();
    expect(providerNumber(null, 'stt')).toBeUndefined();
    for (const [kind, rows] of kinds) {
      for (const row of rows) for (const name of [row.id, ...row.aliases]) expect(providerNumber(name, kind as 'stt' | 'tts')).toBe(row.number);
    }
  });

  it("account_info's lists are the ones the creator read before", () => {
    expect(SttProviderList).toEqual([
      { id: 0, name: 'Persona Studio (Azure)', models: [] },
      { id: 1, name: 'Google Cloud Custom', models: ['long', 'short', 'telephony', 'chirp_2'] },
      { id: 2, name: 'Microsoft Azure Custom', models: [] },
      { id: 3, name: 'Deepgram', models: ['nova-3-general', 'nova-2-general', 'nova-2-meeting', 'nova-2-phonecall'] },
      { id: 4, name: 'None', models: [] },
    ]);
    expect(TtsProviderList).toEqual([
      { id: 0, name: 'Amazon Polly' },
      { id: 1, name: 'Microsoft Azure' },
      { id: 2, name: 'ElevenLabs' },
      { id: 3, name: 'Persona Studio default' },
      { id: 4, name: 'None' },
      { id: 5, name: 'Cartesia' },
      { id: 6, name: 'Neuphonic' },
    ]);
  });

  it("the editor's menus of own providers keep the spec's order", () => {
    expect(ownProviderMenu('stt').map((r) => r.label)).toEqual(['Deepgram', 'Google Cloud Custom', 'Microsoft Azure Custom']);
    expect(ownProviderMenu('tts').map((r) => r.label)).toEqual(['Amazon Polly', 'Cartesia', 'ElevenLabs', 'Neuphonic', 'Microsoft Azure']);
  });

  it.each(kinds)('%s: every own provider has a secret key; each required field and rule has a message of SpeechMessages', (_kind, rows) => {
    const messages = Object.values(SpeechMessages) as string[];
    for (const row of rows) {
      if (row.role === 'own') expect(row.fields.some((f) => f.stored === 'api_key' && f.secret)).toBe(true);
      else expect(row.fields).toEqual([]);
      for (const field of row.fields) {
        expect(field.label).not.toBe('');
        if (field.required !== undefined) expect(messages).toContain(field.required);
        if (field.rule) expect(messages).toContain(field.rule.message);
        expect(field.form.startsWith(`${row.kind}Details.`)).toBe(true);
      }
    }
  });

  it('each required field of a provider is reported, with its message, when blank (Composite)', () => {
    for (const row of TtsProviders) {
      const required = (row.fields as TProviderRow['fields']).filter((f) => f.required !== undefined);
      const issues = checkSpeechConfig(1, undefined, { provider: row.number, voice_id: 'v', speed: 0 });
      expect(issues).toEqual(required.map((f) => ({ field: f.form, message: f.required })));
    }
    for (const row of SttProviders) {
      if (row.role !== 'own') continue;
      const required = (row.fields as TProviderRow['fields']).filter((f) => f.required !== undefined);
      const issues = checkSpeechConfig(1, { provider: row.number, languages: 'en-US' }, undefined);
      expect(issues).toEqual(required.map((f) => ({ field: f.form, message: f.required })));
    }
  });

  it('the sealed speech secrets are the rows\' secret fields, with the messages said before', () => {
    expect(providerSecretFields('stt').map((f) => f.stored)).toEqual(['api_key']);
    expect(providerSecretFields('tts').map((f) => f.stored)).toEqual(['api_key', 'secret_key']);
    const P = 'customData.agent_pipeline_config';
    const speech = AvatarSecretFields.filter((f) => f.path.startsWith(`${P}.stt.`) || f.path.startsWith(`${P}.tts.`));
    expect(speech.map((f) => [f.path, f.message])).toEqual([
      [`${P}.stt.api_key`, 'Speech to Text API Key is required again when the provider or the endpoint URL changes'],
      [`${P}.tts.api_key`, 'Text to Speech API Key is required again when the provider or the endpoint URL changes'],
      [`${P}.tts.secret_key`, 'Polly Secret Key is required again when the provider or the endpoint URL changes'],
    ]);
    expect(AvatarSecretMessages.ttsSecretAgain).toBe('Polly Secret Key is required again when the provider or the endpoint URL changes');
    for (const f of speech) {
      const kind = f.path.includes('.stt.') ? 'stt' : 'tts';
      expect(f.boundTo).toEqual([
        { path: `${P}.${kind}.provider`, kind },
        { path: `${P}.${kind}.base_url`, kind: 'url' },
      ]);
    }
  });

  it('a provider row with a base URL names a PROVIDER_*_URL variable', () => {
    for (const [, rows] of kinds) for (const row of rows) if (row.baseUrlEnv) expect(row.baseUrlEnv).toMatch(/^PROVIDER_[A-Z_]+_URL$/);
  });

  it("the TTS rows' defaults and hints are the ones the editor and the worker's clients used", () => {
    const byId = (id: string) => (TtsProviders as readonly TProviderRow[]).find((r) => r.id === id)!;
    expect(byId('elevenlabs').defaults?.model).toBe('eleven_flash_v2_5');
    expect(byId('cartesia').defaults?.model).toBe('sonic-3');
    const placeholder = (id: string) => byId(id).fields.find((f) => f.stored === 'model')?.placeholder;
    expect([placeholder('elevenlabs'), placeholder('cartesia')]).toEqual(['eleven_flash_v2_5', 'sonic-3']);
    expect(byId('neuphonic').defaults).toEqual({ speed: 1, language: 'en' });
    expect(TtsProviders.filter((r) => 'speedRequired' in r && r.speedRequired).map((r) => r.id)).toEqual(['azure', 'neuphonic']);
  });

  it("the STT defaults read from the rows are the spec's (section 9)", () => {
    expect(SttDefaults).toEqual({
      deepgram: { model: 'nova-3-general', language: 'multi' },
      google: { model: 'long', region: 'global' },
      azure: { language: 'en-US' },
      defaultLanguage: 'en-US',
      agentLanguage: 'en',
    });
  });

  it("the editor's fields, in the order it shows them, with the kinds, hints and help entries it had", () => {
    const shown = (rows: readonly TProviderRow[]) =>
      Object.fromEntries(rows.filter((r) => r.role === 'own').map((r) => [r.id, r.fields.map((f) => [f.form, f.input ?? (f.secret ? 'secret' : 'text'), f.help])]));
    expect(shown(SttProviders)).toEqual({
      google: [
        ['sttDetails.sttAPIKey', 'file', 'sttAPIKey'],
        ['sttDetails.sttRegion', 'region', 'sttRegion'],
        ['sttDetails.sttModel', 'lookup', 'sttModel'],
      ],
      azure: [
        ['sttDetails.sttAPIKey', 'secret', 'sttAPIKey'],
        ['sttDetails.sttRegion', 'region', 'sttRegion'],
      ],
      deepgram: [
        ['sttDetails.sttAPIKey', 'secret', 'sttAPIKey'],
        ['sttDetails.sttModel', 'lookup', 'sttModel'],
        ['sttDetails.deepgramEndpoint', 'text', 'deepgramEndpoint'],
      ],
    });
    expect(shown(TtsProviders)).toEqual({
      polly: [
        ['ttsDetails.pollyAccessKey', 'secret', 'ttsKey'],
        ['ttsDetails.pollySecretKey', 'secret', 'ttsKey'],
        ['ttsDetails.ttsRegion', 'region', 'ttsRegion'],
      ],
      azure: [
        ['ttsDetails.azureSubscriptionKey', 'secret', 'ttsKey'],
        ['ttsDetails.ttsRegion', 'region', 'ttsRegion'],
      ],
      elevenlabs: [
        ['ttsDetails.elevenLabsAPIKey', 'secret', 'ttsKey'],
        ['ttsDetails.ttsModel', 'text', 'ttsModel'],
      ],
      cartesia: [
        ['ttsDetails.cartesiaAPIKey', 'secret', 'ttsKey'],
        ['ttsDetails.ttsModel', 'text', 'ttsModel'],
      ],
      neuphonic: [
        ['ttsDetails.api_key', 'secret', 'ttsKey'],
        ['ttsDetails.lang_code', 'select', 'ttsLanguage'],
      ],
    });
    const field = (rows: readonly TProviderRow[], id: string, stored: string) => rows.find((r) => r.id === id)!.fields.find((f) => f.stored === stored)!;
    expect(field(SttProviders, 'deepgram', 'endpointing').hint).toBe('Silence that ends an utterance; default 300 ms.');
    expect(field(TtsProviders, 'cartesia', 'model').hint).toBe("Leave empty for the provider's default.");
    expect(field(SttProviders, 'deepgram', 'model').options).toEqual(['nova-3-general', 'nova-2-general']);
    expect(field(SttProviders, 'google', 'model').options).toEqual(['long', 'short', 'telephony', 'chirp_2']);
  });

  it('the regions and languages offered are the lists the editor had; the look-ups check the region shapes they checked', () => {
    expect(SpeechRegions).toEqual({
      aws: ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1'],
      azure: ['eastus', 'westus', 'westeurope', 'northeurope', 'uksouth', 'southeastasia'],
      google: ['global', 'us', 'eu'],
    });
    expect(NeuphonicLanguages.map((l) => [l.value, l.label])).toEqual([
      ['en', 'English'],
      ['es', 'Spanish'],
      ['de', 'German'],
      ['nl', 'Dutch'],
      ['hi', 'Hindi'],
      ['fr', 'French'],
    ]);
    expect(String(SpeechRegionPatterns.aws)).toBe(String(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/));
    expect(String(SpeechRegionPatterns.azure)).toBe(String(/^[a-z0-9]{2,30}$/));
    const region = (rows: readonly TProviderRow[], id: string) => rows.find((r) => r.id === id)!.fields.find((f) => f.stored === 'region');
    expect([region(TtsProviders, 'polly')?.options, region(TtsProviders, 'polly')?.pattern]).toEqual([SpeechRegions.aws, SpeechRegionPatterns.aws]);
    expect([region(TtsProviders, 'azure')?.options, region(TtsProviders, 'azure')?.pattern]).toEqual([SpeechRegions.azure, SpeechRegionPatterns.azure]);
    expect([region(SttProviders, 'azure')?.options, region(SttProviders, 'azure')?.pattern]).toEqual([SpeechRegions.azure, SpeechRegionPatterns.azure]);
    expect(region(SttProviders, 'google')?.options).toEqual(SpeechRegions.google);
  });

  it("the voices look-up's request fields are the spec's names, read from the rows", () => {
    expect(TtsLookupKeyNames).toEqual(['pollyAccessKey', 'pollySecretKey', 'azureSubscriptionKey', 'elevenLabsAPIKey', 'cartesiaAPIKey', 'neuphonicAPIKey']);
    const asked = (number: number) => ttsLookupFields(number).map((f) => [f.lookup.name, f.lookup.optional ?? false]);
    expect(asked(TtsProvider.Polly)).toEqual([
      ['pollyAccessKey', false],
      ['pollySecretKey', false],
      ['ttsRegion', false],
    ]);
    expect(asked(TtsProvider.Azure)).toEqual([
      ['azureSubscriptionKey', false],
      ['ttsRegion', false],
    ]);
    expect(asked(TtsProvider.ElevenLabs)).toEqual([['elevenLabsAPIKey', false]]);
    expect(asked(TtsProvider.Cartesia)).toEqual([['cartesiaAPIKey', false]]);
    expect(asked(TtsProvider.Neuphonic)).toEqual([
      ['neuphonicAPIKey', false],
      ['lang_code', true],
    ]);
    expect(asked(TtsProvider.Default)).toEqual([]);
    expect(ProviderLookupLimits.neuphonicKeyMinExclusive).toBe(8);
    // Every name a row gives is a field of the request; the providers are the spec's numbers.
    for (const row of TtsProviders) for (const f of ttsLookupFields(row.number)) expect(Object.keys(ZTtsVoicesRequest.shape)).toContain(f.lookup.name);
    expect(Object.keys(ZTtsVoicesRequest.shape).sort()).toEqual(
      ['avatarId', 'ttsProvider', 'default_tts', 'pollyAccessKey', 'pollySecretKey', 'ttsRegion', 'ttsSpeechSpeed', 'azureSubscriptionKey', 'elevenLabsAPIKey', 'cartesiaAPIKey', 'neuphonicAPIKey', 'lang_code', 'setupMode'].sort(),
    );
    for (const n of [0, 1, 2, 3, 4, 5, 6]) expect(ZTtsVoicesRequest.safeParse({ ttsProvider: n }).success).toBe(true);
    expect(ZTtsVoicesRequest.safeParse({ ttsProvider: 7 }).success).toBe(false);
  });

  it("the voices look-up's request keeps its field order, so a refused body's messages come in the same order", () => {
    // The 400's `errors` follow the schema's fields, and the Brain tab shows the first one.
    expect(Object.keys(ZTtsVoicesRequest.shape)).toEqual([
      'avatarId',
      'ttsProvider',
      'default_tts',
      'pollyAccessKey',
      'pollySecretKey',
      'ttsRegion',
      'ttsSpeechSpeed',
      'azureSubscriptionKey',
      'elevenLabsAPIKey',
      'cartesiaAPIKey',
      'neuphonicAPIKey',
      'lang_code',
      'setupMode',
    ]);
    const refused = ZTtsVoicesRequest.safeParse({ ttsProvider: TtsProvider.Azure, azureSubscriptionKey: 'k'.repeat(1001), ttsRegion: 'r'.repeat(41) });
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['ttsRegion', 'azureSubscriptionKey']);
  });
});
