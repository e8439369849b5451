import { createAssistantBrain } from './assistant.js';
import { createDialogflowBrain } from './dialogflow.js';
import { createLlmBrain } from './llm.js';
import type { BrainOptions } from './options.js';
import { createRestBrain } from './rest.js';
import type { Brain, BrainDeps } from './types.js';

export { createAssistantBrain, createDialogflowBrain, createLlmBrain, createRestBrain, type BrainOptions };

/**
 * The provider brains by the kind of the session's brain config: llm, assistant, rest,
 * dialogflow. Null for the kinds the session runtime answers itself (echo, unavailable).
 * Construction does no I/O; `start()` (REST LOGIN, the assistant's lookup) does.
 */
export function createProviderBrain(deps: BrainDeps, options: BrainOptions = {}): Brain | null {
  switch (deps.config.brain.kind) {
    case 'llm':
      return createLlmBrain(deps, options);
    case 'assistant':
      return createAssistantBrain(deps, options);
    case 'rest':
      return createRestBrain(deps, options);
    case 'dialogflow':
      return createDialogflowBrain(deps, options);
    default:
      return null;
  }
}
