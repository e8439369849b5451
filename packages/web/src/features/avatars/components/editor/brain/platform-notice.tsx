import Alert from '@mui/material/Alert';
import { PlatformServiceMessages, PlatformSpeechMessages, platformVoiceSentence } from '@persona/contract';
import { usePlatformServices } from '../../../api/get-platform-services';

/**
 * Says so when the avatar relies on one of the product's own services (Simple mode's language
 * model, the realtime without a key of its own) and this server does not run it: such an avatar
 * opens, but cannot answer. Nothing while the answer is unknown or the call failed.
 */
export function PlatformNotice({ service }: { service: 'llm' | 'realtime' }) {
  const platform = usePlatformServices();
  if (!platform.data || platform.data[service]) return null;
  return (
    <Alert severity="warning" sx={{ gridColumn: '1 / -1' }} data-testid={`platform-${service}-missing`}>
      {service === 'llm' ? PlatformServiceMessages.llmMissing : PlatformServiceMessages.realtimeMissing}
    </Alert>
  );
}

/**
 * Which voice a product voice (Simple mode, or "Persona Studio" in Composite) will really speak
 * with on this server: its hosted provider's, or the offline voice when the operator set none
 * (so the tab never names a hosted voice that visitors will not hear).
 */
export function PlatformVoiceNote({ defaultTts, voice }: { defaultTts: string; voice: string }) {
  const platform = usePlatformServices();
  if (!platform.data) return null;
  const sentence = platformVoiceSentence({ defaultTts, voice }, platform.data.tts);
  return (
    <Alert severity={sentence.isOffline ? 'warning' : 'info'} sx={{ gridColumn: '1 / -1' }} data-testid="platform-voice-note">
      {sentence.text}
    </Alert>
  );
}

/** Which recogniser the product's own speech to text is on this server (or that there is none). */
export function PlatformSttNote() {
  const platform = usePlatformServices();
  if (!platform.data) return null;
  const stt = platform.data.stt;
  return (
    <Alert severity={stt ? 'info' : 'warning'} sx={{ gridColumn: '1 / -1' }} data-testid="platform-stt-note">
      {stt ? PlatformSpeechMessages.sttHosted(stt.provider) : PlatformSpeechMessages.sttOffline}
    </Alert>
  );
}
