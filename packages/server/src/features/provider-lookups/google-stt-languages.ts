import { sttRow, type TSttLanguage } from '@persona/contract';

/**
 * Google Cloud Speech-to-Text v2: which languages each recognition model serves and where.
 * Google publishes this as a table ("Speech-to-Text supported languages"), not as an API, so the
 * portal carries it: the spec's Google entries are code, name, models and locations. Models are
 * the ones the creator offers (contract SttProviderList: long, short, telephony, chirp_2).
 */
const V2_LOCATIONS = ['global', 'us', 'eu', 'us-central1', 'europe-west4', 'asia-southeast1'];
/** chirp_2 runs only in these regions. */
const CHIRP_2_LOCATIONS = ['us-central1', 'europe-west4', 'asia-southeast1'];

type Row = [code: string, name: string, models: string[]];
/** The Google row's models (long, short, telephony, chirp_2), and the same without telephony. */
const ALL: string[] = [...sttRow('google').models];
const NO_TELEPHONY = ALL.filter((m) => m !== 'telephony');

const ROWS: Row[] = [
  ['ar-XA', 'Arabic', ['long', 'short', 'telephony']],
  ['ar-EG', 'Arabic (Egypt)', ['long', 'short', 'chirp_2']],
  ['bn-IN', 'Bengali (India)', NO_TELEPHONY],
  ['cmn-Hans-CN', 'Chinese, Mandarin (Simplified, China)', ALL],
  ['cmn-Hant-TW', 'Chinese, Mandarin (Traditional, Taiwan)', ['long', 'short', 'chirp_2']],
  ['cs-CZ', 'Czech (Czech Republic)', ['long', 'short', 'chirp_2']],
  ['da-DK', 'Danish (Denmark)', ['long', 'short', 'chirp_2']],
  ['de-DE', 'German (Germany)', ALL],
  ['el-GR', 'Greek (Greece)', ['long', 'short', 'chirp_2']],
  ['en-AU', 'English (Australia)', ALL],
  ['en-GB', 'English (United Kingdom)', ALL],
  ['en-IN', 'English (India)', ALL],
  ['en-US', 'English (United States)', ALL],
  ['es-ES', 'Spanish (Spain)', ALL],
  ['es-MX', 'Spanish (Mexico)', ['long', 'short', 'chirp_2']],
  ['es-US', 'Spanish (United States)', ALL],
  ['fi-FI', 'Finnish (Finland)', ['long', 'short', 'chirp_2']],
  ['fil-PH', 'Filipino (Philippines)', ['long', 'short', 'chirp_2']],
  ['fr-CA', 'French (Canada)', ALL],
  ['fr-FR', 'French (France)', ALL],
  ['he-IL', 'Hebrew (Israel)', ['long', 'short', 'chirp_2']],
  ['hi-IN', 'Hindi (India)', ALL],
  ['hu-HU', 'Hungarian (Hungary)', ['long', 'short', 'chirp_2']],
  ['id-ID', 'Indonesian (Indonesia)', ['long', 'short', 'chirp_2']],
  ['it-IT', 'Italian (Italy)', ALL],
  ['ja-JP', 'Japanese (Japan)', ALL],
  ['ko-KR', 'Korean (South Korea)', ALL],
  ['ms-MY', 'Malay (Malaysia)', ['long', 'short', 'chirp_2']],
  ['nb-NO', 'Norwegian Bokmål (Norway)', ['long', 'short', 'chirp_2']],
  ['nl-NL', 'Dutch (Netherlands)', ALL],
  ['pl-PL', 'Polish (Poland)', ['long', 'short', 'chirp_2']],
  ['pt-BR', 'Portuguese (Brazil)', ALL],
  ['pt-PT', 'Portuguese (Portugal)', ['long', 'short', 'chirp_2']],
  ['ro-RO', 'Romanian (Romania)', ['long', 'short', 'chirp_2']],
  ['ru-RU', 'Russian (Russia)', ['long', 'short', 'chirp_2']],
  ['sv-SE', 'Swedish (Sweden)', ['long', 'short', 'chirp_2']],
  ['ta-IN', 'Tamil (India)', NO_TELEPHONY],
  ['te-IN', 'Telugu (India)', NO_TELEPHONY],
  ['th-TH', 'Thai (Thailand)', ['long', 'short', 'chirp_2']],
  ['tr-TR', 'Turkish (Turkey)', ['long', 'short', 'chirp_2']],
  ['uk-UA', 'Ukrainian (Ukraine)', ['long', 'short', 'chirp_2']],
  ['vi-VN', 'Vietnamese (Vietnam)', ['long', 'short', 'chirp_2']],
];

export const GOOGLE_STT_LANGUAGES: readonly TSttLanguage[] = ROWS.map(([code, name, models]) => ({
  code,
  name,
  models,
  // Where at least one of its models runs (chirp_2 alone would narrow it to its regions).
  locations: models.some((m) => m !== 'chirp_2') ? V2_LOCATIONS : CHIRP_2_LOCATIONS,
}));
