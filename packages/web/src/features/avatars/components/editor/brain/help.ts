import { LlmBaseUrls, RealtimeProviders, SetupModeLabel, type TInfoPanelItem } from '@persona/contract';

/** What the Brain tab's info panel says about each Foundations field (spec section 2, "Info panel"). */
export type BrainHelpKey =
  | 'foundations'
  | 'mode'
  | 'engine'
  | 'llmBaseUrl'
  | 'llmCustomUrl'
  | 'llmApiKey'
  | 'llmModel'
  | 'llmPrompt'
  | 'interactionType'
  | 'llmAssistant'
  | 'memory'
  | 'maxTokens'
  | 'restUrl'
  | 'restKey'
  | 'restCustomText'
  | 'agentLanguage'
  | 'dfJsonKey'
  | 'dfProject'
  | 'dfAgent'
  | 'dfRegion'
  | 'rtUrl'
  | 'rtKey'
  | 'rtModel'
  | 'rtVoice'
  | 'rtInstructions'
  | 'rtGreeting'
  | 'elAgentId'
  | 'elConnection'
  | 'elApiKey';

const secretRule = { name: 'Stored encrypted', type: 'rule', description: 'Shown masked (••••1234) once saved. Leave the mask to keep the stored key; type a new one to replace it.' };

export const brainHelp: Record<BrainHelpKey, TInfoPanelItem> = {
  foundations: {
    title: 'Foundations',
    description: 'How the avatar thinks and speaks: the mode, the engine that writes its answers, and (Simple and Composite) how it hears and speaks.',
    possibleValues: [],
    usefulness: 'Everything the avatar says comes from the engine chosen here. Click a field to see what it does.',
  },
  mode: {
    title: 'Mode',
    description: 'Which parts of the conversation the product runs and which ones you bring.',
    possibleValues: [
      { name: SetupModeLabel[0], type: 'mode', description: 'The product runs speech recognition, the language model (Groq) and the voice. Engines: Echo Test, Large Language Model, REST Endpoint.' },
      { name: SetupModeLabel[1], type: 'mode', description: 'You choose each part and bring your own keys. Engines: Echo Test, Large Language Model, REST Endpoint, Dialogflow CX and ES.' },
      { name: SetupModeLabel[2], type: 'mode', description: 'A multimodal realtime model hears and speaks itself. Engine: Realtime. No separate speech settings.' },
      { name: SetupModeLabel[3], type: 'mode', description: 'A conversational AI framework runs the whole conversation. Engines: TEN, ElevenLabs Conversational AI, custom STT/LLM/TTS.' },
    ],
    usefulness: 'Changing the mode resets the brain settings to what is saved, and picks the mode’s first engine if the current one is not offered there.',
  },
  engine: {
    title: 'Avatar Engine',
    description: 'What writes the avatar’s answers. The engines offered depend on the mode.',
    possibleValues: [
      { name: 'Echo Test', type: 'engine', description: 'Repeats what it hears. New avatars start here.' },
      { name: 'Large Language Model', type: 'engine', description: 'An OpenAI-compatible chat model (OpenAI, Groq, Gemini and others, or your own URL).' },
      { name: 'REST Endpoint', type: 'engine', description: 'Your own web service answers each message.' },
      { name: 'Google Dialogflow ES / CX', type: 'engine', description: 'Your Dialogflow agent, with a service-account key.' },
      { name: 'Realtime', type: 'engine', description: 'A speech-to-speech model (OpenAI or Gemini realtime).' },
      { name: 'TEN / ElevenLabs / custom', type: 'engine', description: 'Third-party frameworks (3rd Party AI mode).' },
    ],
    usefulness: 'Choosing an engine sets its defaults: the LLM starts on Groq; TEN and Realtime switch the speech providers to None.',
  },
  llmBaseUrl: {
    title: 'Base URL',
    description: 'The OpenAI-compatible API the model is called at.',
    possibleValues: [
      ...LlmBaseUrls.map((b) => ({ name: b.name, type: 'url', description: b.url })),
      { name: 'Custom URL', type: 'url', description: 'Any other OpenAI-compatible API (https). Private addresses are refused.' },
    ],
    usefulness: 'Changing it clears the model, the key and the assistant: they belong to one provider. Simple mode always uses Groq.',
  },
  llmCustomUrl: {
    title: 'Custom Base URL',
    description: 'The address of an OpenAI-compatible API, for example https://llm.example.com/v1. The model list is read from its /models.',
    possibleValues: [{ name: 'URL', type: 'string', description: 'http(s) only; the server refuses private network addresses.' }],
    usefulness: 'Lets you use a gateway or a self-hosted model.',
  },
  llmApiKey: {
    title: 'API Key',
    description: 'Your key for the base URL’s provider. It is used by the server only, never by the browser.',
    possibleValues: [{ name: 'Key', type: 'secret', description: 'Required (not in Simple mode).' }, secretRule],
    usefulness: 'Without a valid key no model list loads and the avatar cannot answer.',
  },
  llmModel: {
    title: 'Model',
    description: 'The model that writes the answers, read from the provider with your key. Simple mode offers the product’s models and picks the first.',
    possibleValues: [{ name: 'Model id', type: 'string', description: 'Required. Pick from the list or type an id.' }],
    usefulness: 'Bigger models answer better; smaller ones answer faster — and speed matters in a spoken conversation.',
  },
  llmPrompt: {
    title: 'Prompt',
    description: 'The instructions the model gets before every conversation: who the avatar is, what it knows, how it speaks.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Optional. Empty: a default asking for friendly replies of 15–35 words.' }],
    usefulness: 'Spoken answers should be short and without lists or markdown; say so here.',
  },
  interactionType: {
    title: 'Interaction Type',
    description: 'Prompt: a chat model with your prompt. Assistant: one of your OpenAI assistants.',
    possibleValues: [
      { name: 'Prompt', type: 'choice', description: 'The default.' },
      { name: 'Assistant', type: 'choice', description: 'Only in Composite mode, without realtime, with the OpenAI base URL.' },
    ],
    usefulness: 'An assistant keeps its own instructions and files at OpenAI.',
  },
  llmAssistant: {
    title: 'Assistant',
    description: 'The OpenAI assistant to talk through, listed with your key (newest first, at most 100).',
    possibleValues: [{ name: 'Assistant id', type: 'string', description: 'Required when the interaction type is Assistant.' }],
    usefulness: 'The assistant’s own instructions and tools apply.',
  },
  memory: {
    title: 'Avatar Memory',
    description: 'At the end of a conversation the avatar writes a short note about the visitor and reads it the next time the same visitor comes back.',
    possibleValues: [
      { name: 'Enabled', type: 'boolean', description: 'Remembers returning visitors.' },
      { name: 'Disabled', type: 'boolean', description: 'Every conversation starts fresh.' },
    ],
    usefulness: 'Returning visitors do not have to repeat themselves. Tell your visitors if you keep notes about them.',
  },
  maxTokens: {
    title: 'Max Tokens',
    description: 'The longest answer the model may write, in tokens (about ¾ of a word each).',
    possibleValues: [{ name: 'Whole number', type: 'number', description: 'Above 0. Empty: the provider’s default.' }],
    usefulness: 'Caps cost and keeps spoken answers short.',
  },
  restUrl: {
    title: 'REST Endpoint URL',
    description: 'Your web service that answers each visitor message.',
    possibleValues: [{ name: 'URL', type: 'string', description: 'Required; http(s).' }],
    usefulness: 'Lets any backend of yours be the avatar’s brain.',
  },
  restKey: {
    title: 'REST API Key',
    description: 'Sent to your endpoint so it knows the call is from your avatar.',
    possibleValues: [{ name: 'Key', type: 'secret', description: 'Required.' }, secretRule],
    usefulness: 'Without it anyone could call your endpoint pretending to be the avatar.',
  },
  restCustomText: {
    title: 'Custom Text',
    description: 'Text sent to your endpoint with every message (for example a customer or flow id).',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Optional.' }],
    usefulness: 'One endpoint can serve several avatars and tell them apart.',
  },
  agentLanguage: {
    title: 'Language',
    description: 'The language the engine answers in.',
    possibleValues: [{ name: 'Language code', type: 'string', description: 'Default en.' }],
    usefulness: 'It must match the language the agent was built for.',
  },
  dfJsonKey: {
    title: 'JSON Key File',
    description: 'The service-account key file (JSON) of a Google Cloud service account that may use your Dialogflow agent.',
    possibleValues: [{ name: '.json file', type: 'file', description: 'Required; a service-account key with client_email and private_key, at most 64 KB.' }, secretRule],
    usefulness: 'The avatar signs in to Dialogflow with it.',
  },
  dfProject: {
    title: 'Project Id',
    description: 'The Google Cloud project of the agent. Filled from the key file when empty.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required.' }],
    usefulness: 'Dialogflow finds the agent by project.',
  },
  dfAgent: {
    title: 'Agent Id',
    description: 'The Dialogflow CX agent’s id (the UUID in its URL).',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required for CX.' }],
    usefulness: 'A CX project can hold several agents.',
  },
  dfRegion: {
    title: 'Region Id',
    description: 'Where the CX agent lives, for example global, us-central1 or europe-west1.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required for CX.' }],
    usefulness: 'Calls go to the agent’s region.',
  },
  rtUrl: {
    title: 'Realtime URL',
    description: 'The realtime (speech-to-speech) API.',
    possibleValues: RealtimeProviders.map((p) => ({ name: p.name, type: 'url', description: p.url })),
    usefulness: 'The models and voices offered follow the URL.',
  },
  rtKey: {
    title: 'Realtime API Key',
    description: 'Your key for the realtime provider.',
    possibleValues: [{ name: 'Key', type: 'secret', description: 'Required.' }, secretRule],
    usefulness: 'The provider bills your account for the conversation.',
  },
  rtModel: {
    title: 'Realtime Model',
    description: 'The multimodal model that hears and answers.',
    possibleValues: RealtimeProviders.flatMap((p) => p.models.map((m) => ({ name: m, type: 'model', description: p.name }))),
    usefulness: 'Mini models answer faster and cost less.',
  },
  rtVoice: {
    title: 'Voice',
    description: 'The realtime model’s own voice.',
    possibleValues: RealtimeProviders.map((p) => ({ name: p.name, type: 'voices', description: p.voices.join(', ') })),
    usefulness: 'The voice is the avatar’s personality as much as its face.',
  },
  rtInstructions: {
    title: 'Instructions',
    description: 'What the realtime model is told about its role.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Optional.' }],
    usefulness: 'Keeps the conversation on your topic.',
  },
  rtGreeting: {
    title: 'Greeting',
    description: 'What the avatar says first.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Optional.' }],
    usefulness: 'A good greeting tells visitors what they can ask.',
  },
  elAgentId: {
    title: 'Agent ID',
    description: 'Your ElevenLabs Conversational AI agent’s id. It is checked with ElevenLabs 500 ms after you stop typing.',
    possibleValues: [
      { name: 'idle', type: 'state', description: 'Empty or under 12 characters: not checked yet.' },
      { name: 'checking', type: 'state', description: 'Asking ElevenLabs.' },
      { name: 'public', type: 'state', description: 'Works without a key; any key is cleared.' },
      { name: 'private', type: 'state', description: 'Works only with your API key.' },
      { name: 'invalid_api_key', type: 'state', description: 'The agent needs a (valid) API key.' },
      { name: 'invalid_agent_id', type: 'state', description: 'No such agent.' },
    ],
    usefulness: 'A wrong id means the avatar cannot start a conversation.',
  },
  elConnection: {
    title: 'Connection Type',
    description: 'How the conversation connects to ElevenLabs.',
    possibleValues: [
      { name: 'WebRTC', type: 'choice', description: 'The default; lowest latency.' },
      { name: 'WebSocket', type: 'choice', description: 'Where WebRTC is blocked.' },
    ],
    usefulness: 'WebRTC copes better with poor networks.',
  },
  elApiKey: {
    title: 'API Key',
    description: 'Your ElevenLabs key, needed for a private agent. Shown only when the agent needs one.',
    possibleValues: [{ name: 'Key', type: 'secret', description: 'At least 16 characters.' }, secretRule],
    usefulness: 'Private agents only answer with the owner’s key.',
  },
};
