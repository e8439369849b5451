import { checkSpeechConfig, type TAvatarInputParsed } from '@persona/contract';

/**
 * The speech forms' rules (avatar creator spec section 5 "Speech forms") on a saved avatar's
 * `agent_pipeline_config.stt` / `.tts`: the same rules and messages the Brain tab shows
 * (contract `checkSpeechConfig`). A masked key stands for the stored one (kept on save), so it
 * counts as given. Only Simple and Composite avatars have speech sections; a section without a
 * provider is not configured (the runtime uses the product's own) and is not checked.
 */
export function speechErrors(input: Pick<TAvatarInputParsed, 'setupMode' | 'customData'>): string[] {
  const { stt, tts } = input.customData.agent_pipeline_config;
  return checkSpeechConfig(input.setupMode, stt, tts).map((issue) => issue.message);
}
