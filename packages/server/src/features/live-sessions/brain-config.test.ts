import { describe, expect, it } from 'vitest';
import { DefaultLlmInstruction } from '@persona/contract';
import { brainConfig } from './brain-config.js';

// Spec section 5: "An empty LLM prompt falls back to a default instruction asking for replies of 15-35 words."
describe('the LLM prompt at runtime', () => {
  const avatar = (instructions: unknown) => ({
    nlpEngine: 10,
    setupMode: 1,
    config: { customData: { agent_pipeline_config: { llm: { base_url: 'https://llm.example.com/v1', api_key: 'k', model: 'm', instructions } } } },
  });

  it('is the default asking for 15–35 words when empty or blank', () => {
    for (const empty of [undefined, '', '   \n']) {
      const brain = brainConfig(avatar(empty), null);
      expect(brain).toMatchObject({ kind: 'llm', instructions: DefaultLlmInstruction });
    }
    expect(DefaultLlmInstruction).toMatch(/between 15 and 35 words/);
  });

  it('is the avatar’s own prompt otherwise', () => {
    expect(brainConfig(avatar('You are the harbour guide.'), null)).toMatchObject({ kind: 'llm', instructions: 'You are the harbour guide.' });
  });
});
