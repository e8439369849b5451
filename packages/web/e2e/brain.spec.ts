import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { createVerifiedAccount } from './support/accounts';
import { FAKE_PROVIDERS as P } from './support/fake-providers';
import { openEditor, signIn } from './support/pages';

// The Brain tab's Foundations: an LLM avatar configured against the fake OpenAI models API
// (PROVIDER_OPENAI_URL, started by global-setup), saved, reloaded, kept with its key masked; the
// ElevenLabs agent check through its states (PROVIDER_ELEVENLABS_URL); each engine form's screenshot.
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

async function shot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.waitForLoadState('load');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

async function createAndEdit(page: Page, prefix: string): Promise<{ panel: Locator; id: number }> {
  const account = await createVerifiedAccount(prefix);
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.getByRole('button', { name: 'START' }).click();
  const create = page.getByRole('region', { name: 'Create avatar' });
  await create.getByRole('tab', { name: 'UPPER BODY 3D' }).click();
  await create.getByRole('radio', { name: 'Maya', exact: true }).click();
  await create.getByRole('textbox', { name: 'Avatar Name' }).fill('Brain e2e');
  const created = page.waitForResponse((r) => r.url().endsWith('/api/add_avatar_v2') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'CREATE AVATAR' }).click();
  const id = ((await (await created).json()) as { agent: { id: number } }).agent.id;
  await page.getByRole('dialog', { name: 'Avatar created' }).getByRole('button', { name: 'OK' }).click();
  return { panel: await openBrain(page, id), id };
}

async function openBrain(page: Page, id: number): Promise<Locator> {
  const card = page.getByTestId(`avatar-card-${id}`);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(card.getByRole('button', { name: /^(Edit|Expand .*)$/ }).first()).toBeVisible();
  const edit = card.getByRole('button', { name: 'Edit' });
  if (!(await edit.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  const panel = await openEditor(page, edit);
  await panel.getByRole('tab', { name: 'Brain' }).click();
  // The Brain tab is its own chunk: slow on a busy machine the first time.
  await expect(panel.getByRole('radiogroup', { name: 'Mode' })).toBeVisible({ timeout: 30_000 });
  return panel;
}

async function chooseOption(page: Page, combobox: Locator, name: string | RegExp) {
  await combobox.click();
  await page.getByRole('option', { name }).click();
}

test('an LLM avatar against an OpenAI-compatible API: models from the provider, saved, kept after a reload with the key masked', async ({ page }) => {
  test.setTimeout(240_000);
  const { panel, id } = await createAndEdit(page, 'brain-llm');
  await expect(panel.getByRole('radio', { name: /Simple - Persona Studio STT\/LLM\/TTS currently set/ })).toBeChecked();
  await expect(panel.getByRole('combobox', { name: 'Avatar Engine' })).toHaveText('Echo Test (currently set)');
  await shot(page, 'brain-echo-1280');

  await panel.getByRole('radio', { name: /Composite/ }).check();
  await chooseOption(page, panel.getByRole('combobox', { name: 'Avatar Engine' }), 'Large Language Model');
  await expect(panel.getByRole('combobox', { name: 'Base URL' })).toContainText('Groq');
  await chooseOption(page, panel.getByRole('combobox', { name: 'Base URL' }), /^OpenAI/);

  // A wrong key: the spec's message; the right one: the provider's models.
  const key = panel.getByLabel('API Key');
  await key.fill('sk-wrong-key-000');
  await key.blur();
  await expect(panel.getByText('Invalid URL or API Key provided.')).toBeVisible();
  await key.fill(P.openAiKey);
  await key.blur();
  await panel.getByRole('combobox', { name: 'Model' }).click();
  for (const m of P.openAiModels) await expect(page.getByRole('option', { name: m, exact: true })).toBeVisible();
  await page.getByRole('option', { name: 'gpt-4o-mini', exact: true }).click();
  await expect(panel.getByRole('radiogroup', { name: 'Interaction Type' })).toBeVisible();
  await panel.getByRole('textbox', { name: 'Prompt' }).fill('You are the e2e museum guide.');
  await expect(page.getByRole('complementary', { name: 'Field help' }).getByRole('heading', { name: 'Prompt' })).toBeVisible();
  await panel.getByRole('textbox', { name: 'Max Tokens' }).fill('300');
  await shot(page, 'brain-llm-1280');

  await panel.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog', { name: 'Confirm Update' }).getByRole('button', { name: 'Update' }).click();
  await expect(page.getByText('Updated Successfully')).toBeVisible();

  await page.reload();
  const again = await openBrain(page, id);
  await expect(again.getByRole('radio', { name: /Composite - Any STT\/LLM\/TTS currently set/ })).toBeChecked();
  await expect(again.getByRole('combobox', { name: 'Avatar Engine' })).toHaveText('Large Language Model (currently set)');
  await expect(again.getByRole('combobox', { name: 'Base URL' })).toContainText('OpenAI');
  await expect(again.getByRole('combobox', { name: 'Model' })).toHaveValue('gpt-4o-mini');
  await expect(again.getByRole('textbox', { name: 'Prompt' })).toHaveValue('You are the e2e museum guide.');
  await expect(again.getByRole('textbox', { name: 'Max Tokens' })).toHaveValue('300');
  await expect(again.getByLabel('API Key')).toHaveValue(`••••${P.openAiKey.slice(-4)}`);
  // The page never holds the key.
  expect(await page.content()).not.toContain(P.openAiKey);
  // The masked key still lists the models (the server uses the stored key).
  await again.getByRole('combobox', { name: 'Model' }).click();
  await expect(page.getByRole('option', { name: 'gpt-4o', exact: true })).toBeVisible();
});

test('the ElevenLabs agent check through its states, and every engine form', async ({ page }) => {
  test.setTimeout(240_000);
  const { panel } = await createAndEdit(page, 'brain-forms');
  const engine = panel.getByRole('combobox', { name: 'Avatar Engine' });

  await panel.getByRole('radio', { name: /Composite/ }).check();
  await chooseOption(page, engine, 'REST Endpoint');
  await panel.getByRole('textbox', { name: 'REST Endpoint URL' }).fill('not a url');
  await panel.getByRole('textbox', { name: 'REST Endpoint URL' }).blur();
  await expect(panel.getByText('Not a valid URL')).toBeVisible();
  await shot(page, 'brain-rest-1280');
  await chooseOption(page, engine, 'Google Dialogflow ES');
  await shot(page, 'brain-dialogflow-es-1280');
  await chooseOption(page, engine, 'Google Dialogflow CX');
  await shot(page, 'brain-dialogflow-cx-1280');

  await panel.getByRole('radio', { name: /Speech to Speech/ }).check();
  await expect(engine).toHaveText('Persona Studio Realtime');
  await expect(panel.getByRole('region', { name: 'Speech to Text' })).toHaveCount(0);
  await shot(page, 'brain-realtime-1280');

  await panel.getByRole('radio', { name: /3rd Party AI/ }).check();
  await chooseOption(page, engine, 'ElevenLabs Conversational AI');
  const status = panel.getByTestId('elevenlabs-status');
  const agentId = panel.getByRole('textbox', { name: 'Agent ID' });
  await expect(status).toHaveAttribute('data-state', 'idle');
  await agentId.fill('agent_123');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Some fields are invalid. Please correct them before submitting.')).toBeVisible();
  await expect(panel.getByText('Agent ID is too short')).toBeVisible();

  await agentId.fill(P.publicAgent);
  await expect(status).toHaveAttribute('data-state', 'public');
  await expect(panel.getByLabel('API Key')).toHaveCount(0);
  await shot(page, 'brain-elevenlabs-public-1280');

  await agentId.fill('agent_unknown_e2e_9');
  await expect(status).toHaveAttribute('data-state', 'invalid_agent_id');
  await expect(status).toHaveText('Agent ID not found');

  await agentId.fill(P.privateAgent);
  await expect(status).toHaveAttribute('data-state', 'invalid_api_key');
  await expect(status).toHaveText('API key required for this agent');
  await panel.getByLabel('API Key').fill('sk_wrong_but_long_enough');
  await panel.getByLabel('API Key').blur();
  await expect(status).toHaveText('Invalid API key or insufficient permissions');
  await panel.getByLabel('API Key').fill(P.elevenLabsKey);
  await panel.getByLabel('API Key').blur();
  await expect(status).toHaveAttribute('data-state', 'private');
  await shot(page, 'brain-elevenlabs-private-1280');

  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, 'brain-elevenlabs-390');
});

test('a TEN or Custom STT/LLM/TTS avatar explains the agent API; the reference opens aside', async ({ page }) => {
  test.setTimeout(240_000);
  const { panel, id } = await createAndEdit(page, 'brain-agent');
  const engine = panel.getByRole('combobox', { name: 'Avatar Engine' });
  await panel.getByRole('radio', { name: /3rd Party AI/ }).check();
  await expect(engine).toHaveText('TEN');
  await chooseOption(page, engine, 'Custom STT/LLM/TTS');
  const agent = panel.getByRole('region', { name: 'Your agent' });
  await expect(agent).toBeVisible();
  await expect(agent.getByTestId('agent-avatar-id')).toHaveText(`"${id}"`);
  await expect(agent.getByTestId('agent-dispatch-url')).toHaveText(/^ws:\/\/127\.0\.0\.1:\d+\/api\/agent\/ws$/);
  await expect(agent.getByTestId('agent-key-missing')).toBeVisible();
  fs.mkdirSync(shots, { recursive: true });
  await agent.screenshot({ path: path.join(shots, 'brain-agent-api-1280.png') });

  // The editor is offered from 760 px on (phones only list and connect avatars): at its narrowest
  // nothing of the section (the dispatch address, the code) pushes the page sideways.
  await page.setViewportSize({ width: 760, height: 900 });
  await agent.scrollIntoViewIfNeeded();
  await agent.screenshot({ path: path.join(shots, 'brain-agent-api-760.png') });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  const box = await agent.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(760);

  const [reference] = await Promise.all([page.context().waitForEvent('page'), agent.getByRole('link', { name: /Agent API reference/ }).click()]);
  await reference.setViewportSize({ width: 390, height: 844 });
  await expect(reference.getByRole('heading', { level: 1, name: 'Bring your own agent: the agent API' })).toBeVisible();
  await expect(reference.getByRole('heading', { name: 'Interruptions' })).toBeVisible();
  expect(await reference.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await reference.screenshot({ path: path.join(shots, 'docs-agent-api-390.png') });
  await reference.close();
  // The editor is still there, unsaved engine choice and all.
  await expect(engine).toHaveText('Custom STT/LLM/TTS');
});
