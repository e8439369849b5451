import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBackchannel, isStopRequest } from '../../listening/options.js';
import { sentencesOf, dictionaryWords } from './language-model.js';
import { findPocketsphinx } from './offline.js';
import { OVER_AVATAR_PHRASES, overAvatarTexts } from './over-avatar-model.js';

describe('the over-the-avatar model (ADR 107)', () => {
  const phrases = OVER_AVATAR_PHRASES.split(/[.\n]+/).map((p) => p.trim()).filter(Boolean);

  it('is biased only toward what the listener acts on: every phrase is a backchannel or a stop request', () => {
    expect(phrases.length).toBeGreaterThan(60);
    for (const p of phrases) expect(isBackchannel(p) || isStopRequest(p), p).toBe(true);
  });

  it('holds both kinds, and the conversation corpus after them', () => {
    expect(phrases.filter((p) => isStopRequest(p)).length).toBeGreaterThan(20);
    expect(phrases.filter((p) => isBackchannel(p)).length).toBeGreaterThan(30);
    const texts = overAvatarTexts();
    expect(texts[0]!.weight).toBeGreaterThan(texts[1]!.weight);
  });

  it.skipIf(!findPocketsphinx())('has every word in the recogniser dictionary', () => {
    const dict = dictionaryWords(readFileSync(findPocketsphinx()!.dict, 'utf8'));
    const missing = sentencesOf(OVER_AVATAR_PHRASES).flat().filter((w) => !dict.has(w));
    expect(missing).toEqual([]);
  });
});
