import { describe, expect, it } from 'vitest';
import { SttProviders, TtsProviders, type TProviderRow } from '@persona/contract';
import { speechHelp } from '../components/editor/brain/speech-help';

const own = (rows: readonly TProviderRow[]) => rows.filter((r) => r.role === 'own');

describe('speech help (the Info panel) and the provider rows', () => {
  it('names every own provider in the provider entry and every STT key field in the key entry', () => {
    const names = (key: keyof typeof speechHelp) => speechHelp[key].possibleValues.map((v) => v.name);
    for (const row of own(SttProviders)) expect(names('sttProvider').some((n) => n.split(' / ').includes(row.label))).toBe(true);
    for (const row of own(TtsProviders)) expect(names('ttsProvider').some((n) => n.split(' / ').includes(row.label))).toBe(true);
    for (const row of own(SttProviders)) expect(names('sttAPIKey')).toContain(row.fields.find((f) => f.stored === 'api_key')?.label);
  });

  it('every row field opens an entry the panel has', () => {
    for (const row of [...SttProviders, ...TtsProviders] as readonly TProviderRow[]) for (const field of row.fields) expect(speechHelp[field.help]?.title).toBeTruthy();
  });
});
