import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { apiLogin, baseUrl, callApi, createVerifiedAccount } from './support/accounts';
import { FAKE_PROVIDERS as P } from './support/fake-providers';
import { openEditor, signIn } from './support/pages';

// The Brain tab's speech forms and its Knowledge Base / Functions sub-tabs (issue 11): their
// states and messages in a real browser, shot at desktop and phone width for a visual review.
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

async function shot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shots, `${name}-${page.viewportSize()?.width ?? 0}.png`), fullPage: true });
}

async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

test('speech forms, Collection List and Function List in the Brain tab', async ({ page }) => {
  test.setTimeout(300_000);
  const account = await createVerifiedAccount('brain-speech');
  const session = await apiLogin(account.email, account.password);
  // A knowledge collection of the user (the knowledge API takes the token of /api/token/jwt).
  const { jwtToken } = (await callApi('/api/token/jwt', undefined, session)).json as { jwtToken: string };
  for (const name of ['Product manuals', 'Visitor FAQ']) {
    const made = await fetch(`${baseUrl()}/knowledge_collection`, { method: 'POST', headers: { Authorization: `Bearer ${jwtToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
    expect(made.status).toBe(200);
  }

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await page.getByRole('button', { name: 'START' }).click();
  const create = page.getByRole('region', { name: 'Create avatar' });
  await create.getByRole('tab', { name: 'UPPER BODY 3D' }).click();
  await create.getByRole('radio', { name: 'Maya', exact: true }).click();
  await create.getByRole('textbox', { name: 'Avatar Name' }).fill('Speech Maya');
  await page.getByRole('button', { name: 'CREATE AVATAR' }).click();
  await page.getByRole('dialog', { name: 'Avatar created' }).getByRole('button', { name: 'OK' }).click();
  await page.getByRole('button', { name: 'Edit' }).first().click();
  const panel = page.getByRole('region', { name: 'Edit avatar' });
  await panel.getByRole('tab', { name: 'Brain' }).click();

  // Simple: the product's STT, hosted voices and the offline ones; the first voice is picked.
  await expect(page.getByRole('region', { name: 'Text to Speech' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Voice' })).not.toHaveText(/Choose a voice|Loading/);
  await shot(page, 'brain-speech-simple');

  // Composite with the LLM engine: own providers, their fields and messages.
  await panel.getByRole('radio', { name: /Composite/ }).check();
  await choose(page, 'Avatar Engine', 'Large Language Model');
  await choose(page, 'Speech to Text provider', 'Deepgram');
  await expect(page.getByLabel('Main language')).toHaveValue(/multi/);
  await choose(page, 'Text to Speech provider', 'ElevenLabs');
  await page.getByLabel('ElevenLabs API Key').fill('sk_not_a_real_key_000');
  await page.getByLabel('ElevenLabs API Key').blur();
  // The provider cannot be reached from here: the spec's failure with Retry.
  await expect(page.getByText('Failed to retrieve voices. Ensure that your keys are valid.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
  // Save checks every rule first: the form says what is wrong, nothing is sent.
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Deepgram API Key is required')).toBeVisible();
  await expect(page.getByText('Voice is required')).toBeVisible();
  await shot(page, 'brain-speech-composite-errors');
  await choose(page, 'Speech to Text provider', 'Google Cloud Custom');
  await choose(page, 'Text to Speech provider', 'Amazon Polly');
  // Save checks every rule first: the form says what is wrong, nothing is sent.
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Google JSON key file is required')).toBeVisible();
  await expect(page.getByText('Polly Secret Key is required')).toBeVisible();
  await shot(page, 'brain-speech-google-polly');

  // Functions: Realtime is off for this avatar (only an administrator sets it): the reason is shown.
  await panel.getByRole('tab', { name: 'FUNCTIONS' }).click();
  await expect(page.getByText(/Functions need the avatar’s Realtime setting on/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add functions' })).toBeDisabled();
  await shot(page, 'brain-functions-disabled');

  // Knowledge Base: the user's collections in the Collection List.
  await panel.getByRole('tab', { name: 'KNOWLEDGE BASE' }).click();
  await page.getByRole('button', { name: 'Add collections' }).click();
  const list = page.getByRole('dialog', { name: 'Collection List' });
  await expect(list.getByText('Product manuals')).toBeVisible();
  await list.getByRole('checkbox', { name: 'Visitor FAQ' }).check();
  await shot(page, 'brain-collection-list');
  await list.getByRole('button', { name: 'Link selected' }).click();
  await expect(page.getByRole('list', { name: /Linked knowledge base collections/ }).getByText('Visitor FAQ')).toBeVisible();
  await shot(page, 'brain-knowledge');

  // Phone width: the editor is desktop-only (spec: mobile users list and connect); narrowing the
  // window leaves the list with Connect and the 'needs a larger screen' note, no stray dialog.
  await page.getByRole('button', { name: 'Add collections' }).click();
  await expect(page.getByRole('dialog', { name: 'Collection List' }).getByText('Product manuals')).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByText('Creating and editing avatars needs a larger screen.', { exact: false })).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'Collection List' })).toHaveCount(0);
  await shot(page, 'brain-mobile');
});

test('Composite + LLM with own STT and TTS keys and a linked collection: saved, kept after a reload with the keys masked', async ({ page }) => {
  test.setTimeout(300_000);
  const deepgramKey = 'dg_e2e_deepgram_0123456789';
  const account = await createVerifiedAccount('brain-wire');
  const session = await apiLogin(account.email, account.password);
  const { jwtToken } = (await callApi('/api/token/jwt', undefined, session)).json as { jwtToken: string };
  const made = await fetch(`${baseUrl()}/knowledge_collection`, { method: 'POST', headers: { Authorization: `Bearer ${jwtToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Harbour notes' }) });
  expect(made.status).toBe(200);

  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await page.getByRole('button', { name: 'START' }).click();
  const create = page.getByRole('region', { name: 'Create avatar' });
  await create.getByRole('tab', { name: 'UPPER BODY 3D' }).click();
  await create.getByRole('radio', { name: 'Maya', exact: true }).click();
  await create.getByRole('textbox', { name: 'Avatar Name' }).fill('Wired Maya');
  const created = page.waitForResponse((r) => r.url().endsWith('/api/add_avatar_v2') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'CREATE AVATAR' }).click();
  const id = ((await (await created).json()) as { agent: { id: number } }).agent.id;
  await page.getByRole('dialog', { name: 'Avatar created' }).getByRole('button', { name: 'OK' }).click();
  const openBrain = async () => {
    // After a reload the card may be collapsed: expand it first.
    const card = page.getByTestId(`avatar-card-${id}`);
    await expect(card.getByRole('button', { name: /^(Edit|Expand .*)$/ }).first()).toBeVisible();
    const edit = card.getByRole('button', { name: 'Edit' });
    if (!(await edit.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
    const panel = await openEditor(page, edit);
    await panel.getByRole('tab', { name: 'Brain' }).click();
    // The Brain tab is its own chunk: slow on a busy machine the first time.
    await expect(panel.getByRole('radiogroup', { name: 'Mode' })).toBeVisible({ timeout: 30_000 });
    return panel;
  };
  const panel = await openBrain();

  // Composite with the LLM engine (the fake OpenAI models API).
  await panel.getByRole('radio', { name: /Composite/ }).check();
  await choose(page, 'Avatar Engine', 'Large Language Model');
  await page.getByRole('combobox', { name: 'Base URL' }).click();
  await page.getByRole('option', { name: /^OpenAI/ }).click();
  await panel.getByLabel('API Key', { exact: true }).fill(P.openAiKey);
  await panel.getByLabel('API Key', { exact: true }).blur();
  await choose(page, 'Model', 'gpt-4o-mini');

  // Own speech providers with their keys; the ElevenLabs voices come from the (fake) provider.
  await choose(page, 'Speech to Text provider', 'Deepgram');
  await panel.getByLabel('Deepgram API Key').fill(deepgramKey);
  await choose(page, 'Text to Speech provider', 'ElevenLabs');
  await panel.getByLabel('ElevenLabs API Key').fill(P.elevenLabsKey);
  await panel.getByLabel('ElevenLabs API Key').blur();
  await expect(page.getByRole('combobox', { name: 'Voice' })).toHaveText('Rachel');
  await choose(page, 'Voice', 'Adam');
  await expect(page.getByRole('complementary', { name: 'Field help' }).getByRole('heading', { name: 'Voice' })).toBeVisible();
  await shot(page, 'brain-wire-speech');

  // A collection of the user's own, linked in the Knowledge Base sub-tab.
  await panel.getByRole('tab', { name: 'KNOWLEDGE BASE' }).click();
  await page.getByRole('button', { name: 'Add collections' }).click();
  const list = page.getByRole('dialog', { name: 'Collection List' });
  await list.getByRole('checkbox', { name: 'Harbour notes' }).check();
  await list.getByRole('button', { name: 'Link selected' }).click();
  await expect(page.getByRole('list', { name: 'Linked knowledge base collections' }).getByText('Harbour notes')).toBeVisible();
  await expect(page.getByRole('complementary', { name: 'Field help' }).getByRole('heading', { name: 'Knowledge Base' })).toBeVisible();
  await shot(page, 'brain-wire-knowledge');

  const saved = page.waitForResponse((r) => r.url().endsWith('/api/add_avatar_v2') && r.request().method() === 'POST');
  await panel.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog', { name: 'Confirm Update' }).getByRole('button', { name: 'Update' }).click();
  expect((await saved).status()).toBe(200);
  await expect(page.getByText('Updated Successfully')).toBeVisible();

  await page.reload();
  const again = await openBrain();
  await expect(again.getByRole('radio', { name: /Composite - Any STT\/LLM\/TTS currently set/ })).toBeChecked();
  await expect(again.getByRole('combobox', { name: 'Avatar Engine' })).toHaveText('Large Language Model (currently set)');
  // The LLM's Model comes first (Deepgram has a Model too).
  await expect(again.getByRole('combobox', { name: 'Model' }).first()).toHaveValue('gpt-4o-mini');
  await expect(again.getByLabel('API Key', { exact: true })).toHaveValue(`••••${P.openAiKey.slice(-4)}`);
  await expect(again.getByRole('combobox', { name: 'Speech to Text provider' })).toHaveText('Deepgram');
  await expect(again.getByLabel('Deepgram API Key')).toHaveValue(`••••${deepgramKey.slice(-4)}`);
  await expect(again.getByRole('combobox', { name: 'Text to Speech provider' })).toHaveText('ElevenLabs');
  await expect(again.getByLabel('ElevenLabs API Key')).toHaveValue(`••••${P.elevenLabsKey.slice(-4)}`);
  // The masked key still lists the voices (the server uses the stored key): the saved one is shown.
  await expect(again.getByRole('combobox', { name: 'Voice' })).toHaveText('Adam');
  await again.getByRole('tab', { name: 'KNOWLEDGE BASE' }).click();
  await expect(page.getByRole('list', { name: 'Linked knowledge base collections' }).getByText('Harbour notes')).toBeVisible();
  // What was loaded is not unsaved work (no form fills itself in as a change).
  await expect(again.getByText('Unsaved changes')).toHaveCount(0);
  // The page never holds the keys.
  const html = await page.content();
  for (const key of [P.openAiKey, P.elevenLabsKey, deepgramKey]) expect(html).not.toContain(key);
});
