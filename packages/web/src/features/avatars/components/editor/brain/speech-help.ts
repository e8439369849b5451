import type { TInfoPanelItem, TSpeechHelpKey } from '@persona/contract';

/** The Info panel entries the speech fields name (the rows' fields name theirs: contract providers.ts). */
export type SpeechHelpKey = TSpeechHelpKey;

/** What the Brain tab's Info panel says about each speech field. */
export const speechHelp: Record<SpeechHelpKey, TInfoPanelItem> = {
  sttProvider: {
    title: 'Speech to Text provider',
    description: 'The service that turns what visitors say into text. Simple mode always uses Persona Studio’s own; Composite mode can use your account with a provider.',
    possibleValues: [
      { name: 'Deepgram', type: 'provider', description: 'Streaming recognition with your Deepgram key; language "multi" detects the language.' },
      { name: 'Google Cloud Custom', type: 'provider', description: 'Your Google Cloud service account (JSON key file) and region.' },
      { name: 'Microsoft Azure Custom', type: 'provider', description: 'Your Azure Speech key and region.' },
      { name: 'Persona Studio', type: 'provider', description: 'The product’s own recognition (Azure or Google variants when not realtime).' },
      { name: 'None', type: 'provider', description: 'No listening: visitors type.' },
    ],
    usefulness: 'Recognition quality decides whether the avatar understands the question at all; your own provider lets you pick models and languages.',
  },
  sttAPIKey: {
    title: 'Speech to Text key',
    description: 'The key of your provider account. It is stored encrypted and shown only as its last four characters; leaving the masked value keeps the stored key.',
    possibleValues: [
      { name: 'Deepgram API Key', type: 'secret', description: 'From the Deepgram console.' },
      { name: 'Azure Subscription Key', type: 'secret', description: 'From your Azure Speech resource.' },
      { name: 'Google JSON key file', type: 'file', description: 'A service-account key (.json) with access to Speech-to-Text.' },
    ],
    usefulness: 'Without a valid key the provider refuses to transcribe.',
  },
  sttRegion: {
    title: 'Region',
    description: 'Where your provider resource lives (Azure: eastus, westeurope…; Google: global, us, eu).',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required for Azure and Google.' }],
    usefulness: 'A key only works in its own region; a nearby region also answers faster.',
  },
  sttModel: {
    title: 'Model',
    description: 'The provider’s recognition model. Defaults: Deepgram nova-3-general, Google long.',
    possibleValues: [{ name: 'Model name', type: 'string', description: 'Loaded from the provider where it can be.' }],
    usefulness: 'Models differ in accuracy, languages and latency.',
  },
  deepgramEndpoint: {
    title: 'Endpoint',
    description: 'Milliseconds of silence after which Deepgram ends an utterance.',
    possibleValues: [{ name: 'Integer', type: 'number', description: 'Greater than 0; default 300.' }],
    usefulness: 'Shorter answers sooner but may cut a visitor off mid-thought.',
  },
  sttLanguage: {
    title: 'Main language',
    description: 'The language visitors mostly speak. It is the first of the avatar’s languages.',
    possibleValues: [
      { name: 'Language code', type: 'string', description: 'en-US, de-DE, … (default en-US).' },
      { name: 'multi', type: 'Deepgram', description: 'Deepgram detects the language (10 languages).' },
    ],
    usefulness: 'Recognition is far more accurate in the language it expects.',
  },
  sttAdditionalLanguages: {
    title: 'Additional languages',
    description: 'Other languages visitors may speak. At most 10 can be selected.',
    possibleValues: [{ name: 'Language codes', type: 'list', description: 'Up to 10.' }],
    usefulness: 'Lets the avatar understand visitors who switch language.',
  },
  sttContextPhrases: {
    title: 'Context phrases',
    description: 'Words and phrases the recogniser should expect, one per line: product names, people, places.',
    possibleValues: [{ name: 'Lines', type: 'text', description: 'Up to 100 phrases of 200 characters.' }],
    usefulness: 'Unusual names are otherwise often misheard.',
  },
  ttsProvider: {
    title: 'Text to Speech provider',
    description:
      'The service that speaks the avatar’s answers. Persona Studio’s own voices need no account; the offline voice speaks on any server. An avatar whose provider keys are missing speaks with the offline voice.',
    possibleValues: [
      { name: 'Amazon Polly', type: 'provider', description: 'Standard and neural voices; access key, secret key and region.' },
      { name: 'Microsoft Azure', type: 'provider', description: 'Subscription key and region.' },
      { name: 'ElevenLabs / Cartesia', type: 'provider', description: 'Your API key; optional model.' },
      { name: 'Neuphonic', type: 'provider', description: 'API key and language; speed defaults to 1.' },
      { name: 'Persona Studio', type: 'provider', description: 'Hosted Azure or Polly voices, or the offline voice.' },
      { name: 'None', type: 'provider', description: 'Text only.' },
    ],
    usefulness: 'The voice is what visitors remember of the avatar.',
  },
  ttsKey: {
    title: 'Text to Speech keys',
    description: 'Your provider keys, stored encrypted and shown masked. Voices reload when you leave a key or region field.',
    possibleValues: [{ name: 'Key', type: 'secret', description: 'Leaving the masked value keeps the stored key.' }],
    usefulness: 'The voice list and the avatar’s speech both use these keys.',
  },
  ttsRegion: {
    title: 'Region',
    description: 'Polly: an AWS region such as us-east-1. Azure: the Speech resource’s region such as eastus.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required for Polly and Azure.' }],
    usefulness: 'Keys only work in their own region.',
  },
  ttsLanguage: {
    title: 'Language',
    description: 'The language of Neuphonic’s voices.',
    possibleValues: [{ name: 'Language code', type: 'string', description: 'en, es, de, nl, hi, fr.' }],
    usefulness: 'Neuphonic lists voices per language.',
  },
  ttsModel: {
    title: 'Model',
    description: 'The provider’s speech model; empty uses its default.',
    possibleValues: [{ name: 'Model id', type: 'string', description: 'For example eleven_flash_v2_5 or sonic-3.' }],
    usefulness: 'Faster models answer sooner; larger ones sound more natural.',
  },
  ttsVoice: {
    title: 'Voice',
    description: 'Loaded from the provider with your keys; the first one is picked when none is chosen. Voices marked Offline work on any server.',
    possibleValues: [{ name: 'Voice', type: 'string', description: 'Required unless the provider is None.' }],
    usefulness: 'Pick a voice that fits the avatar’s look and language.',
  },
  ttsSpeechSpeed: {
    title: 'Speech speed',
    description: 'How fast the avatar speaks, from -1 (slower) to 1 (faster). Required for Azure and Neuphonic.',
    possibleValues: [{ name: 'Number', type: 'number', description: '-1 to 1; 0 normal (Neuphonic: 1).' }],
    usefulness: 'A calm pace is easier to follow; a brisk one suits short answers.',
  },
};
