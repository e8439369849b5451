import { describe, expect, it } from 'vitest';
import { readLiveSpeech, SetupMode, SttProvider } from '@persona/contract';
import { chooseStt, createSttEngine } from './choose.js';
import type { OfflineRecognizer } from './offline.js';

const recognizer: OfflineRecognizer = { transcribe: async () => 'hi', warm: async () => undefined, close: async () => undefined };
/** The stored agent_pipeline_config as the portal reads it for a session that runs the avatar's own STT. */
const stored = (input: { setupMode: number; pipeline: unknown }) => ({ setupMode: input.setupMode, stt: readLiveSpeech(input.pipeline, { keys: true }).stt });
const custom = (stt: Record<string, unknown>) => chooseStt(stored({ setupMode: SetupMode.Composite, pipeline: { stt } }));
const fetchNever = (() => Promise.reject(new Error('no network in this test'))) as unknown as Parameters<typeof createSttEngine>[1]['fetch'];
const settings = { languages: ['en-US'] };

describe('which STT engine an avatar listens with', () => {
  it('follows the stored stt config; keys missing or Default with nothing hosted → offline; None and realtime modes → none', () => {
    expect(chooseStt(stored({ setupMode: SetupMode.Simple, pipeline: {} }))).toMatchObject({ kind: 'offline', reason: 'Simple mode: no hosted speech to text is configured on this server' });
    expect(custom({ provider: SttProvider.Default })).toMatchObject({ kind: 'offline' });
    expect(custom({ provider: SttProvider.None })).toMatchObject({ kind: 'none' });
    expect(chooseStt(stored({ setupMode: SetupMode.SpeechToSpeech, pipeline: { stt: { provider: SttProvider.Deepgram, api_key: 'k' } } }))).toMatchObject({ kind: 'none' });
    expect(custom({ provider: SttProvider.Deepgram })).toMatchObject({ kind: 'offline', reason: "the avatar's Deepgram key is missing" });
    expect(custom({ provider: '3', api_key: 'dg', model: 'nova-3-general', languages: 'multi', context_phrases: 'Persona\nStudio\n' })).toEqual({
      kind: 'network',
      choice: { kind: 'deepgram', apiKey: 'dg', operator: false },
      settings: { languages: ['multi'], model: 'nova-3-general', phrases: ['Persona', 'Studio'] },
    });
    expect(custom({ provider: SttProvider.Azure, api_key: 'k' })).toMatchObject({ kind: 'offline' });
    expect(custom({ provider: 'azure', api_key: 'k', region: 'westeurope', languages: 'en-US, de-DE' })).toMatchObject({
      kind: 'network',
      choice: { kind: 'azure', region: 'westeurope' },
      settings: { languages: ['en-US', 'de-DE'] },
    });
    expect(custom({ provider: 'openai', api_key: 'k', base_url: 'https://example.com/v1' })).toMatchObject({ kind: 'network', choice: { kind: 'openai', baseUrl: 'https://example.com/v1' } });
    expect(custom({ provider: 'klingon' })).toMatchObject({ kind: 'offline' });
  });

  it("Simple mode and Default use the operator's hosted STT when one is configured", () => {
    expect(chooseStt(stored({ setupMode: SetupMode.Simple, pipeline: {} }), { deepgram: { apiKey: 'op' } })).toMatchObject({ kind: 'network', choice: { kind: 'deepgram', apiKey: 'op', operator: true } });
    expect(chooseStt(stored({ setupMode: SetupMode.Composite, pipeline: { stt: { provider: SttProvider.Default } } }), { azure: { apiKey: 'op', region: 'eastus' } })).toMatchObject({
      kind: 'network',
      choice: { kind: 'azure', operator: true },
    });
  });

  it('builds the engine: offline without pocketsphinx means no listening (typed chat only); network choices get their client', () => {
    const deps = { offline: recognizer, fetch: fetchNever };
    expect(createSttEngine({ kind: 'offline', reason: '', settings }, { ...deps, offline: null })).toBeNull();
    expect(createSttEngine({ kind: 'offline', reason: '', settings }, deps)).toMatchObject({ provider: 'offline', mode: 'batch' });
    expect(createSttEngine({ kind: 'none', reason: '' }, deps)).toBeNull();
    expect(createSttEngine({ kind: 'network', choice: { kind: 'deepgram', apiKey: 'k', operator: false }, settings }, deps)).toMatchObject({ provider: 'deepgram', mode: 'stream' });
    expect(createSttEngine({ kind: 'network', choice: { kind: 'openai', baseUrl: 'https://example.com/v1', apiKey: 'k', operator: false }, settings }, deps)).toMatchObject({ mode: 'batch' });
  });
});
