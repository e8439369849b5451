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
    expect([byId('elevenlabs').modelPlaceholder, byId('cartesia').modelPlaceholder]).toEqual(['eleven_flash_v2_5', 'sonic-3']);
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
});
