import { describe, expect, it } from 'vitest';
import { FillerOptions, SetupMode } from '@persona/contract';
import { advancedSchema, advancedValuesOf, applyAdvancedValues, FILLERS_REQUIRED } from './advanced-form';

/** The Advanced tab's fillers (ADR 100): stored in agent_pipeline_config.fillers, off by default. */
describe('advanced form: fillers', () => {
  it('a new avatar: off, with the default lines ready to keep or edit', () => {
    const v = advancedValuesOf({});
    expect(v.fillersEnabled).toBe(false);
    expect(v.fillers).toBe(FillerOptions.phrases.join('\n'));
  });

  it('reads what is stored, and writes it back with the other pipeline settings kept', () => {
    const agent = { customData: { agent_pipeline_config: { fillers: { enabled: true, phrases: ['One moment.'] }, llm: { model: 'm' } } } };
    const v = advancedValuesOf(agent as never);
    expect(v).toMatchObject({ fillersEnabled: true, fillers: 'One moment.' });
    const out = applyAdvancedValues({ customData: agent.customData }, { ...v, fillers: ' One moment. \n\n Let me see. ' }, SetupMode.Simple);
    const pipeline = (out.customData as { agent_pipeline_config: Record<string, unknown> }).agent_pipeline_config;
    expect(pipeline.fillers).toEqual({ enabled: true, phrases: ['One moment.', 'Let me see.'] });
    expect(pipeline.llm).toEqual({ model: 'm' });
  });

  it('checks the lines with the contract’s rules; at least one when on; S2S does not check them', () => {
    const base = advancedValuesOf({});
    const errors = (values: object, s2s = false) => {
      const r = advancedSchema(s2s).safeParse({ ...base, ...values });
      return r.success ? [] : r.error.issues.filter((i) => i.path[0] === 'fillers').map((i) => i.message);
    };
    expect(errors({ fillersEnabled: true })).toEqual([]);
    expect(errors({ fillersEnabled: true, fillers: ' \n ' })).toEqual([FILLERS_REQUIRED]);
    expect(errors({ fillersEnabled: false, fillers: '' })).toEqual([]);
    expect(errors({ fillersEnabled: true, fillers: 'x'.repeat(81) })).toEqual([`A filler must be at most ${FillerOptions.maxChars} characters`]);
    expect(errors({ fillersEnabled: true, fillers: Array.from({ length: 11 }, (_, i) => `Line ${i}`).join('\n') })).toEqual([`At most ${FillerOptions.maxPhrases} fillers`]);
    expect(errors({ fillersEnabled: true, fillers: '' }, true)).toEqual([]);
  });
});
