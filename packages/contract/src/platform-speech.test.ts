import { describe, expect, it } from 'vitest';
import { platformSpeechFromEnv, platformSpeechInfo, spokenPlatformVoice } from './platform-speech.js';

describe('PLATFORM_TTS_* and PLATFORM_STT_* (the portal and `npm run worker` read them with this)', () => {
  it('unset: no hosted voice or recogniser, and nothing wrong', () => {
    expect(platformSpeechFromEnv({})).toEqual({ tts: null, stt: null, problems: [] });
    expect(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: ' ', PLATFORM_STT_PROVIDER: '' })).toEqual({ tts: null, stt: null, problems: [] });
  });

  it('reads each provider with what it needs, the default voice when none is named', () => {
    expect(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'Azure', PLATFORM_TTS_API_KEY: ' az-key ', PLATFORM_TTS_REGION: 'westeurope' }).tts).toEqual({
      provider: 'azure',
      apiKey: 'az-key',
      region: 'westeurope',
      voice: 'en-US-JennyNeural',
    });
    expect(
      platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'polly', PLATFORM_TTS_API_KEY: 'AKID', PLATFORM_TTS_SECRET_KEY: 'secret', PLATFORM_TTS_VOICE: 'Matthew (neural)', PLATFORM_TTS_URL: 'http://10.0.0.5:4566/' }).tts,
    ).toEqual({ provider: 'polly', apiKey: 'AKID', secretKey: 'secret', region: 'us-east-1', url: 'http://10.0.0.5:4566', voice: 'Matthew (neural)' });
    expect(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'openai', PLATFORM_TTS_URL: 'http://tts.internal/v1', PLATFORM_TTS_MODEL: 'kokoro' }).tts).toEqual({
      provider: 'openai',
      apiKey: '',
      url: 'http://tts.internal/v1',
      voice: 'alloy',
      model: 'kokoro',
    });
    // A gateway with {region}, or one of its own (then the region is not needed).
    expect(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'azure', PLATFORM_TTS_API_KEY: 'k', PLATFORM_TTS_URL: 'http://127.0.0.1:9000' }).tts).toMatchObject({ url: 'http://127.0.0.1:9000' });

    expect(platformSpeechFromEnv({ PLATFORM_STT_PROVIDER: 'azure', PLATFORM_STT_API_KEY: 'k', PLATFORM_STT_REGION: 'eastus' }).stt).toEqual({ provider: 'azure', apiKey: 'k', region: 'eastus' });
    expect(platformSpeechFromEnv({ PLATFORM_STT_PROVIDER: 'deepgram', PLATFORM_STT_API_KEY: 'dg', PLATFORM_STT_MODEL: 'nova-3-general' }).stt).toEqual({ provider: 'deepgram', apiKey: 'dg', model: 'nova-3-general' });
    expect(platformSpeechFromEnv({ PLATFORM_STT_PROVIDER: 'google', PLATFORM_STT_API_KEY: 'g', PLATFORM_STT_REGION: 'europe-west4' }).stt).toEqual({ provider: 'google', apiKey: 'g', region: 'europe-west4' });
    expect(platformSpeechFromEnv({ PLATFORM_STT_PROVIDER: 'openai', PLATFORM_STT_URL: 'http://whisper.internal/v1/' }).stt).toEqual({ provider: 'openai', apiKey: '', url: 'http://whisper.internal/v1' });
  });

  it('says every missing or bad setting at once (the start fails fast)', () => {
    const { tts, stt, problems } = platformSpeechFromEnv({
      PLATFORM_TTS_PROVIDER: 'azure',
      PLATFORM_TTS_URL: 'ftp://x',
      PLATFORM_STT_PROVIDER: 'watson',
    });
    expect(tts).toBeNull();
    expect(stt).toBeNull();
    expect(problems).toEqual([
      'PLATFORM_TTS_URL: must be a URL starting with http:// or https://',
      'PLATFORM_TTS_API_KEY: is required with azure',
      'PLATFORM_TTS_REGION: is required with azure',
      'PLATFORM_STT_PROVIDER: must be one of azure, google, deepgram, openai',
    ]);
    expect(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'polly', PLATFORM_TTS_API_KEY: 'a' }).problems).toEqual(['PLATFORM_TTS_SECRET_KEY: is required with polly']);
    expect(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'openai' }).problems).toEqual(['PLATFORM_TTS_URL: is required with openai']);
    // A key without a provider is a mistake, not a silent offline voice.
    expect(platformSpeechFromEnv({ PLATFORM_TTS_API_KEY: 'k', PLATFORM_STT_API_KEY: 'k' }).problems).toEqual([
      'PLATFORM_TTS_API_KEY: is set but PLATFORM_TTS_PROVIDER is not (azure, polly, openai)',
      'PLATFORM_STT_API_KEY: is set but PLATFORM_STT_PROVIDER is not (azure, google, deepgram, openai)',
    ]);
  });

  it('what the portal tells the Brain tab holds no key', () => {
    const { tts, stt } = platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'polly', PLATFORM_TTS_API_KEY: 'AKID', PLATFORM_TTS_SECRET_KEY: 'secret', PLATFORM_STT_PROVIDER: 'deepgram', PLATFORM_STT_API_KEY: 'dg' });
    const info = platformSpeechInfo(tts, stt);
    expect(info).toEqual({ tts: { provider: 'polly', voice: 'Joanna (neural)' }, stt: { provider: 'deepgram' } });
    expect(JSON.stringify(info)).not.toMatch(/AKID|secret|dg"/);
  });
});

describe('the voice the visitor hears for a product voice', () => {
  const azure = { provider: 'azure' as const, voice: 'en-GB-SoniaNeural' };
  const polly = { provider: 'polly' as const, voice: 'Joanna (neural)' };
  it('nothing hosted, or the offline voice asked for: the offline voice of the same gender', () => {
    expect(spokenPlatformVoice({ defaultTts: 'azure', voice: 'en-US-JennyNeural' }, null)).toEqual({ provider: 'offline', voice: 'slt' });
    expect(spokenPlatformVoice({ defaultTts: 'azure', voice: 'en-US-GuyNeural' }, null)).toEqual({ provider: 'offline', voice: 'rms' });
    expect(spokenPlatformVoice({ defaultTts: 'offline', voice: 'awb' }, azure)).toEqual({ provider: 'offline', voice: 'awb' });
  });

  it("the hosted provider's voice when the avatar's is one of its voices, else the operator's default", () => {
    expect(spokenPlatformVoice({ defaultTts: 'azure', voice: 'de-DE-KatjaNeural' }, azure)).toEqual({ provider: 'azure', voice: 'de-DE-KatjaNeural' });
    expect(spokenPlatformVoice({ defaultTts: 'polly', voice: 'Amy (neural)' }, azure)).toEqual({ provider: 'azure', voice: 'en-GB-SoniaNeural' });
    expect(spokenPlatformVoice({ defaultTts: 'polly', voice: 'Amy (neural)' }, polly)).toEqual({ provider: 'polly', voice: 'Amy (neural)' });
    expect(spokenPlatformVoice({ defaultTts: 'azure', voice: 'en-US-JennyNeural' }, polly)).toEqual({ provider: 'polly', voice: 'Joanna (neural)' });
    expect(spokenPlatformVoice({ defaultTts: 'azure', voice: 'en-US-JennyNeural' }, { provider: 'openai', voice: 'coral' })).toEqual({ provider: 'openai', voice: 'coral' });
  });
});
