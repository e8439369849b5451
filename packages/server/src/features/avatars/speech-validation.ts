import { checkSpeechConfig, type TAvatarInputParsed } from '@persona/contract';

type Obj = Record<string, unknown>;
const section = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/**
 * The speech forms' rules (avatar creator spec section 5 "Speech forms") on a saved avatar's
 * `agent_pipeline_config.stt` / `.tts`: the same rules and messages the Brain tab shows
 * (contract `checkSpeechConfig`). A masked key stands for the stored one (kept on save), so it
 * counts as given. Only Simple and Composite avatars have speech sections; a section without a
 * provider is not configured (the runtime uses the product's own) and is not checked.
 */
export function speechErrors(input: Pick<TAvatarInputParsed, 'setupMode' | 'customData'>): string[] {
  const pipeline = section(input.customData.agent_pipeline_config) ?? {};
  return checkSpeechConfig(input.setupMode, section(pipeline.stt), section(pipeline.tts)).map((issue) => issue.message);
}
