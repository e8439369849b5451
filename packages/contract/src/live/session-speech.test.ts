import { describe, expect, it } from 'vitest';
import { SttProvider, TtsProvider } from '../avatars.js';
import { LiveSpeechDefaults, readLiveSpeech, ZLiveSpeech } from './session-speech.js';

const own = { keys: true };

describe('the session speech read from the stored agent_pipeline_config', () => {
  it('nothing stored (or not an object): the typed defaults', () => {
    expect(readLiveSpeech({}, own)).toEqual(LiveSpeechDefaults);
    expect(readLiveSpeech(null, own)).toEqual(LiveSpeechDefaults);
    expect(readLiveSpeech({ stt: [], tts: 'x', vad_options: [1] }, own)).toEqual(LiveSpeechDefaults);
    expect(ZLiveSpeech.parse(LiveSpeechDefaults)).toEqual(LiveSpeechDefaults);
  });

  it('providers by number, numeric string or name; unset or not a string/number is Default; anything else is unknown with its name', () => {
    const stt = (provider: unknown) => readLiveSpeech({ stt: { provider } }, own).stt.provider;
    const tts = (provider: unknown) => readLiveSpeech({ tts: { provider } }, own).tts.provider;
    expect([stt(3), stt('2'), stt(' Google '), stt('openai-compatible'), stt(''), stt(true), stt(4)]).toEqual([SttProvider.Deepgram, SttProvider.Azure, SttProvider.Google, 'openai', SttProvider.Default, SttProvider.Default, SttProvider.None]);
    expect([tts(0), tts('amazon'), tts('microsoft'), tts('5'), tts('OpenAI'), tts(null), tts(6)]).toEqual([TtsProvider.Polly, TtsProvider.Polly, TtsProvider.Azure, TtsProvider.Cartesia, 'openai', TtsProvider.Default, TtsProvider.Neuphonic]);
    expect(readLiveSpeech({ stt: { provider: 'whisperx' } }, own).stt).toMatchObject({ provider: 'unknown', name: 'whisperx' });
    expect(readLiveSpeech({ tts: { provider: 42 } }, own).tts).toMatchObject({ provider: 'unknown', name: '42' });
    expect(readLiveSpeech({ tts: { provider: 2.5 } }, own).tts).toMatchObject({ provider: 'unknown', name: '2.5' });
  });

  it('languages: valid tags only, no repeats, the main first; en-US when none is valid', () => {
    expect(readLiveSpeech({ stt: { languages: 'en-US,<script>,fr-FR,en-US' } }, own).stt.languages).toEqual(['en-US', 'fr-FR']);
    expect(readLiveSpeech({ stt: { languages: '<script>' } }, own).stt.languages).toEqual(['en-US']);
  });

  it("each provider's fields, trimmed, with its defaults (Polly's region, Neuphonic's language)", () => {
    expect(readLiveSpeech({ tts: { provider: 0, api_key: ' AK ', secret_key: 'SK', voice_id: ' Joanna ', model: 'neural', speed: '0.2' } }, own).tts).toEqual({ provider: TtsProvider.Polly, defaultTts: '', voice: 'Joanna', speed: 0.2, apiKey: 'AK', secretKey: 'SK', region: 'us-east-1', model: 'neural' });
    expect(readLiveSpeech({ tts: { provider: 6, api_key: 'n' } }, own).tts).toEqual({ provider: TtsProvider.Neuphonic, defaultTts: '', voice: '', apiKey: 'n', langCode: 'en' });
    expect(readLiveSpeech({ tts: { provider: 3, default_tts: ' Polly ', voice_id: 'Amy (neural)', api_key: 'k', speed: 'fast' } }, own).tts).toEqual({ provider: TtsProvider.Default, defaultTts: 'polly', voice: 'Amy (neural)' });
    expect(readLiveSpeech({ stt: { provider: 'azure', api_key: 'k', region: 'eastus', base_url: 'https://x', deepgram_endpoint: 250 } }, own).stt).toEqual({ provider: SttProvider.Azure, defaultStt: '', languages: ['en-US'], endpointingMs: 250, apiKey: 'k', region: 'eastus' });
    expect(readLiveSpeech({ stt: { provider: 3, endpointing: 60_000 } }, own).stt).toMatchObject({ endpointingMs: 10_000 });
    expect(readLiveSpeech({ stt: { provider: 3, endpointing: 'soon' } }, own).stt).not.toHaveProperty('endpointingMs');
  });

  it("without the avatar's own speech no key leaves; with it, only the provider's own keys", () => {
    const stored = { stt: { provider: 2, api_key: 'stt-key', region: 'eastus' }, tts: { provider: 0, api_key: 'polly-id', secret_key: 'polly-secret' } };
    expect(JSON.stringify(readLiveSpeech(stored, { keys: false }))).not.toMatch(/stt-key|polly-id|polly-secret/);
    expect(JSON.stringify(readLiveSpeech(stored, own))).toMatch(/stt-key.*polly-id.*polly-secret/);
    // An Azure voice has no secret key field; a Default voice and STT no key at all.
    expect(readLiveSpeech({ tts: { provider: 1, api_key: 'k', secret_key: 'SK' } }, own).tts).not.toHaveProperty('secretKey');
    expect(JSON.stringify(readLiveSpeech({ stt: { provider: 0, api_key: 'k1' }, tts: { provider: 3, api_key: 'k2' } }, own))).not.toMatch(/k1|k2/);
  });
});
