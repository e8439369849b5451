import { describe, expect, it } from 'vitest';
import { fetchRecipe, isRecipeUrl, readRecipe, RECIPE_MAX_BYTES } from './toon-recipe';

const maya = { format: 'persona-toon', version: 1, name: 'Maya', body: 'upper', build: 'f', hairStyle: 'long', colours: { skin: '#f1c9a5', hair: '#3b2314', top: '#4f46e5', eyes: '#3f6b3a', lips: '#b85c5c' } };
const withColour = (key: string, value: unknown) => ({ ...maya, colours: { ...maya.colours, [key]: value } });

describe('toon recipe', () => {
  it('reads a catalogue recipe, with defaults for what it leaves out', () => {
    const r = readRecipe(maya);
    expect(r).toMatchObject({ name: 'Maya', body: 'upper', build: 'f', hairStyle: 'long', scale: 1 });
    expect(r.colours.skin).toBe('#f1c9a5');
    expect(r.colours.legs).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('tells a recipe URL from a model URL', () => {
    expect(isRecipeUrl('/catalog/models/maya-upper.persona.json')).toBe(true);
    expect(isRecipeUrl('https://x.test/m/maya-upper.persona.json?v=2')).toBe(true);
    expect(isRecipeUrl('/catalog/models/maya-upper.glb')).toBe(false);
    expect(isRecipeUrl('/u/avatar.vrm')).toBe(false);
  });

  it.each([
    ['not an object', []],
    ['another format', { ...maya, format: 'gltf' }],
    ['another version', { ...maya, version: 2 }],
    ['an unknown body', { ...maya, body: 'half' }],
    ['an unknown build', { ...maya, build: 'x' }],
    ['an unknown hair style', { ...maya, hairStyle: '<script>' }],
    ['no colours', { ...maya, colours: undefined }],
    ['a colour name', withColour('skin', 'red')],
    ['a short colour', withColour('hair', '#fff')],
    ['CSS in a colour', withColour('top', '#fff;background:url(x)')],
    ['a number as colour', withColour('eyes', 0xffffff)],
    ['a scale too large', { ...maya, scale: 40 }],
    ['a scale that is not a number', { ...maya, scale: '1' }],
    ['a negative scale', { ...maya, scale: -1 }],
  ])('rejects %s', (_, doc) => {
    expect(() => readRecipe(doc)).toThrow(/persona recipe/);
  });

  it('fetches a recipe, refusing an oversized or failed answer', async () => {
    const answer = (body: string, status = 200) => (async () => new Response(body, { status })) as unknown as typeof fetch;
    await expect(fetchRecipe('/r.persona.json', answer(JSON.stringify(maya)))).resolves.toMatchObject({ name: 'Maya' });
    await expect(fetchRecipe('/r.persona.json', answer(' '.repeat(RECIPE_MAX_BYTES + 1)))).rejects.toThrow(/too large/);
    await expect(fetchRecipe('/r.persona.json', answer('no', 404))).rejects.toThrow(/404/);
    await expect(fetchRecipe('/r.persona.json', answer('{'))).rejects.toThrow();
  });
});
