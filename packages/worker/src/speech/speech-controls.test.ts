import { describe, expect, it } from 'vitest';
import { AvatarActionLimits } from '@persona/contract';
import { tagAction } from './avatar-tags.js';
import { breakMs, speechControl, speechSpeedRate } from './speech-controls.js';

const control = (tag: string) => {
  const action = tagAction(tag);
  return action ? speechControl(action) : null;
};

describe('avatar tags that change the voice: <trl-break> and <trl-config speechSpeed>', () => {
  it('a break is Trulience’s duration in seconds, or SSML’s time in s or ms, or its strength', () => {
    expect(control('<trl-break duration="1.0" />')).toEqual({ kind: 'break', ms: 1000 });
    expect(control("<TRL-BREAK Duration='0.25'/>")).toEqual({ kind: 'break', ms: 250 });
    expect(control('<trl-break time="500ms" />')).toEqual({ kind: 'break', ms: 500 });
    expect(control('<trl-break time="1.5s" />')).toEqual({ kind: 'break', ms: 1500 });
    expect(control('<trl-break duration="750ms" />')).toEqual({ kind: 'break', ms: 750 });
    expect(control('<trl-break strength="strong" />')).toEqual({ kind: 'break', ms: 750 });
    expect(control('<trl-break strength="none" />')).toEqual({ kind: 'break', ms: 0 });
  });

  it('a break without a duration is the default pause; one that does not read is none; a long one is bounded', () => {
    expect(control('<trl-break />')).toEqual({ kind: 'break', ms: AvatarActionLimits.breakDefaultMs });
    expect(control('<trl-break duration="a while" />')).toBeNull();
    expect(control('<trl-break duration="-2" />')).toBeNull();
    expect(control('<trl-break duration="" />')).toBeNull();
    expect(control('<trl-break strength="forever" />')).toBeNull();
    expect(control('<trl-break duration="3600" />')).toEqual({ kind: 'break', ms: AvatarActionLimits.breakMs });
    expect(control('<trl-break time="1e9ms" />')).toBeNull();
    expect(breakMs({ duration: 'Infinity' })).toBeNull();
    expect(breakMs({ duration: '99999999999999999999' })).toBe(AvatarActionLimits.breakMs);
  });

  it('speechSpeed is a change in percent of the avatar’s own pace, within ½× … 2×', () => {
    expect(control("<trl-config speechSpeed='20' />")).toEqual({ kind: 'rate', rate: 1.2 });
    expect(control('<trl-config speechspeed="-25" />')).toEqual({ kind: 'rate', rate: 0.75 });
    expect(control('<trl-config speechSpeed="+50%" />')).toEqual({ kind: 'rate', rate: 1.5 });
    expect(control('<trl-config speechSpeed="0" />')).toEqual({ kind: 'rate', rate: 1 });
    expect(control('<trl-config speechSpeed="-100" />')).toEqual({ kind: 'rate', rate: 0.5 });
    expect(control('<trl-config speechSpeed="100000" />')).toEqual({ kind: 'rate', rate: 2 });
    expect(speechSpeedRate('fast')).toBeNull();
    expect(speechSpeedRate('')).toBeNull();
    expect(speechSpeedRate('NaN')).toBeNull();
    // A trl-config without a speed, or another tag, does nothing to the voice.
    expect(control("<trl-config background='beach' />")).toBeNull();
    expect(control("<trl-anim id='nod' />")).toBeNull();
    expect(control("<trl-content position='DefaultCenter' />")).toBeNull();
  });
});
