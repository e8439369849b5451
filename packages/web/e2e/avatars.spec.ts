import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { buildPerson, renderThumbnail } from '../../../scripts/make-personas.mjs';
import { apiLogin, baseUrl, callApi, createVerifiedAccount, type Account } from './support/accounts';
import { figureGap } from './support/avatar-face';
import { expectAccessible } from './support/axe';
import { expectToastClearOf, toast } from './support/layout';
import { openEditor, signIn } from './support/pages';

// The avatar creator: create from the grid, edit every tab, Confirm Update, reload and find every
// value kept; a stale save from a second tab; the Unsaved Changes prompt; screenshots, each page
// shot also checked with axe-core (serious or critical WCAG A/AA violations fail).
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

async function openCreator(page: Page, account: Account) {
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await expect(page.getByRole('heading', { name: 'Avatar Creator' })).toBeVisible();
}

async function createAvatar(page: Page, look: string, name: string): Promise<number> {
  await page.getByRole('button', { name: 'START' }).click();
  const panel = page.getByRole('region', { name: 'Create avatar' });
  await panel.getByRole('tab', { name: 'UPPER BODY 3D' }).click();
  await panel.getByRole('radio', { name: look, exact: true }).click();
  await panel.getByRole('textbox', { name: 'Avatar Name' }).fill(name);
  const created = page.waitForResponse((r) => r.url().endsWith('/api/add_avatar_v2') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'CREATE AVATAR' }).click();
  const answer = (await (await created).json()) as { agent: { id: number } };
  const dialog = page.getByRole('dialog', { name: 'Avatar created' });
  await expect(dialog).toContainText('select the avatar in the left panel and click EDIT');
  await dialog.getByRole('button', { name: 'OK' }).click();
  return answer.agent.id;
}

async function editAvatar(page: Page, id: number): Promise<Locator> {
  const card = page.getByTestId(`avatar-card-${id}`);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(card.getByRole('button', { name: /^(Edit|Expand .*)$/ }).first()).toBeVisible();
  const edit = card.getByRole('button', { name: 'Edit' });
  if (!(await edit.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  return openEditor(page, edit);
}

async function saveWithConfirm(page: Page, panel: Locator) {
  await panel.getByRole('button', { name: 'Save' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm Update' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Update' }).click();
  await expect(page.getByText('Updated Successfully')).toBeVisible();
}

/** Replaces a CodeMirror editor's text (insertText: no auto-closing brackets). */
async function replaceCode(page: Page, editor: Locator, text: string) {
  await editor.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function shot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  // Not 'networkidle': the live preview iframe keeps its connection open.
  await page.waitForLoadState('load');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  await expectAccessible(page, name);
}

test('create from the grid, edit every tab, save with Confirm Update, and find every value after a reload', async ({ page }) => {
  test.setTimeout(300_000);
  const account = await createVerifiedAccount('avatar-edit');
  await openCreator(page, account);
  await expect(page.getByText('No avatars yet. Click START to create your first one.')).toBeVisible();
  await shot(page, 'avatars-empty-1280');

  await page.getByRole('button', { name: 'START' }).click();
  await expect(page.getByRole('region', { name: 'Create avatar' }).getByRole('radio', { name: 'Maya', exact: true })).toBeVisible();
  await shot(page, 'avatars-create-1280');
  await page.getByRole('button', { name: 'Close' }).click();
  const id = await createAvatar(page, 'Maya', 'E2E Maya');
  await expect(page.getByTestId(`avatar-card-${id}`)).toContainText('E2E Maya');
  await expect(page.getByTestId(`avatar-card-${id}`)).toContainText('Echo Test');

  // A FREE plan allows one avatar: START says so before any form is filled in, with the upgrade link (issue 12).
  await expect(page.getByText('1 of 1 avatars')).toBeVisible();
  await expect(page.getByRole('button', { name: 'START' })).toBeDisabled();
  const limit = page.getByRole('alert').filter({ hasText: 'You have reached the maximum number of avatars for your plan.' });
  await expect(limit.getByRole('link', { name: 'upgrade' })).toHaveAttribute('href', '/react/account');
  await shot(page, 'avatars-limit-1280');

  let panel = await editAvatar(page, id);
  // APPEARANCE: another upper-body look (same type: only the parent config changes).
  await expect(panel.getByRole('radio', { name: 'Maya', exact: true })).toHaveAttribute('aria-checked', 'true');
  await shot(page, 'avatars-tab-appearance-1280');
  await panel.getByRole('radio', { name: 'Leo', exact: true }).click();

  // Environment: background image, colour, lighting.
  await panel.getByRole('tab', { name: 'Environment' }).click();
  await panel.getByRole('radio', { name: 'Office' }).click();
  await panel.getByRole('textbox', { name: 'Background colour', exact: true }).fill('#123456');
  await expect(panel.getByRole('checkbox', { name: 'Enable Background' })).toBeChecked();
  await panel.getByRole('checkbox', { name: 'Transparent' }).check();
  await expect(panel.getByRole('checkbox', { name: 'Enable Background' })).not.toBeChecked();
  await expect(panel.getByText('To set an avatar background, uncheck the transparency option.')).toBeVisible();
  await panel.getByRole('checkbox', { name: 'Enable Background' }).check();
  await expect(panel.getByRole('checkbox', { name: 'Transparent' })).not.toBeChecked();
  await shot(page, 'avatars-tab-environment-1280');
  await panel.getByRole('tab', { name: 'Lighting' }).click();
  await panel.getByRole('radio', { name: 'Warm evening' }).click();
  await shot(page, 'avatars-tab-lighting-1280');
  await panel.getByRole('tab', { name: '3D Environment' }).click();
  await expect(panel.getByText('3D environments apply only to Full Body avatars.')).toBeVisible();
  await shot(page, 'avatars-tab-3d-environment-1280');

  // Brain: the new avatar's mode and engine (brain.spec.ts edits them).
  await panel.getByRole('tab', { name: 'Brain' }).click();
  await expect(panel.getByRole('combobox', { name: 'Avatar Engine' })).toHaveText('Echo Test (currently set)');
  await shot(page, 'avatars-tab-brain-1280');

  // ADVANCED: validation blocks leaving the tab, then real values.
  await panel.getByRole('tab', { name: 'ADVANCED' }).click();
  const wakeUp = panel.getByRole('textbox', { name: 'Wake Up Message' });
  await wakeUp.fill('');
  await panel.getByRole('tab', { name: 'EMBED' }).click();
  await expect(page.getByText('Some fields are invalid. Please correct them before changing tabs.')).toBeVisible();
  await expect(panel.getByText('Wake Up Message is required')).toBeVisible();
  // The toast stays clear of the field error it is about (issue 12).
  await expectToastClearOf(toast(page, 'Some fields are invalid'), panel.getByText('Wake Up Message is required'));
  await shot(page, 'avatars-tab-advanced-invalid-1280');
  await wakeUp.fill('Hi, I am the e2e avatar.');
  // A new avatar starts unlimited (issue 26); unticking restores 600, which is then changed.
  await expect(panel.getByRole('textbox', { name: 'Daily Limit Per Session' })).toHaveValue('Unlimited');
  await panel.getByRole('checkbox', { name: 'Daily Limit Per Session Unlimited' }).uncheck();
  await expect(panel.getByRole('textbox', { name: 'Daily Limit Per Session' })).toHaveValue('600');
  await panel.getByRole('textbox', { name: 'Daily Limit Per Session' }).fill('1200');
  await expect(panel.getByRole('checkbox', { name: 'Demo duration Unlimited' })).toBeChecked();
  await expect(panel.getByRole('textbox', { name: 'Demo duration' })).toHaveValue('Unlimited');
  await panel.getByRole('textbox', { name: 'Interrupt min words' }).fill('2');
  await panel.getByRole('textbox', { name: 'Activation threshold' }).fill('0.6');
  await shot(page, 'avatars-tab-advanced-1280');

  // EMBED: snippet, and the client JSON.
  await panel.getByRole('tab', { name: 'EMBED' }).click();
  await expect(panel.getByTestId('embed-snippet')).toContainText(`/avatar/${id}`);
  await expect(panel.getByRole('table', { name: 'URL parameters' })).toContainText('hideChatHistory');
  await shot(page, 'avatars-tab-embed-1280');
  await panel.getByRole('tab', { name: 'CLIENT JSON' }).click();
  const clientEditor = panel.locator('.cm-editor');
  await replaceCode(page, clientEditor, '{"locale": "de-DE", "chat": {"showHistory": false}');
  await expect(panel.getByText('JSON is invalid')).toBeVisible();
  await panel.getByRole('tab', { name: 'Brain' }).click();
  await expect(page.getByText('Some fields are invalid. Please correct them before changing tabs.').last()).toBeVisible();
  await expect(panel.getByRole('tab', { name: 'EMBED' })).toHaveAttribute('aria-selected', 'true');
  await replaceCode(page, clientEditor, '{"locale": "de-DE", "chat": {"showHistory": false}}');
  await expect(panel.getByText('JSON is invalid')).toBeHidden();
  await shot(page, 'avatars-tab-client-json-1280');
  await panel.getByRole('tab', { name: 'AVATAR/ENVIRONMENT JSON' }).click();
  await expect(panel.locator('.cm-content')).toContainText('leo-upper.json');
  await expect(panel.locator('.cm-content')).toContainText('#123456');

  await saveWithConfirm(page, panel);
  await expect(panel.getByText('Unsaved changes')).toBeHidden();

  // Reload: every value is back.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Avatar Creator' })).toBeVisible();
  panel = await editAvatar(page, id);
  await expect(panel.getByRole('radio', { name: 'Leo', exact: true })).toHaveAttribute('aria-checked', 'true');
  await panel.getByRole('tab', { name: 'Environment' }).click();
  await expect(panel.getByRole('radio', { name: 'Office' })).toHaveAttribute('aria-checked', 'true');
  await expect(panel.getByRole('textbox', { name: 'Background colour', exact: true })).toHaveValue('#123456');
  await expect(panel.getByRole('checkbox', { name: 'Enable Background' })).toBeChecked();
  await panel.getByRole('tab', { name: 'Lighting' }).click();
  await expect(panel.getByRole('radio', { name: 'Warm evening' })).toHaveAttribute('aria-checked', 'true');
  await panel.getByRole('tab', { name: 'ADVANCED' }).click();
  await expect(panel.getByRole('textbox', { name: 'Wake Up Message' })).toHaveValue('Hi, I am the e2e avatar.');
  await expect(panel.getByRole('textbox', { name: 'Daily Limit Per Session' })).toHaveValue('1200');
  await expect(panel.getByRole('textbox', { name: 'Demo duration' })).toHaveValue('Unlimited');
  await expect(panel.getByRole('textbox', { name: 'Interrupt min words' })).toHaveValue('2');
  await expect(panel.getByRole('textbox', { name: 'Activation threshold' })).toHaveValue('0.6');
  await panel.getByRole('tab', { name: 'EMBED' }).click();
  await panel.getByRole('tab', { name: 'CLIENT JSON' }).click();
  await expect(panel.locator('.cm-content')).toContainText('de-DE');

  // Unticking Unlimited restores 600 (the stored value was -1).
  await panel.getByRole('tab', { name: 'ADVANCED' }).click();
  await panel.getByRole('checkbox', { name: 'Demo duration Unlimited' }).uncheck();
  await expect(panel.getByRole('textbox', { name: 'Demo duration' })).toHaveValue('600');
});

test('a save based on an older version (second tab) shows the StaleRequest message', async ({ page, context }) => {
  test.setTimeout(240_000);
  const account = await createVerifiedAccount('avatar-stale');
  await openCreator(page, account);
  const id = await createAvatar(page, 'Amara', 'Stale Amara');
  const first = await editAvatar(page, id);

  const second = await context.newPage();
  await second.goto('/react/avatars');
  const other = await editAvatar(second, id);
  await other.getByRole('tab', { name: 'ADVANCED' }).click();
  await other.getByRole('textbox', { name: 'Wake Up Message' }).fill('Saved from the second tab');
  await saveWithConfirm(second, other);
  await second.close();

  await first.getByRole('tab', { name: 'ADVANCED' }).click();
  await first.getByRole('textbox', { name: 'Wake Up Message' }).fill('Saved from the first tab');
  await first.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog', { name: 'Confirm Update' }).getByRole('button', { name: 'Update' }).click();
  await expect(first.getByText('Avatar data is outdated. It may have been updated from another instance.')).toBeVisible();
  await expect(first.getByRole('button', { name: 'Reload Page' })).toBeVisible();
  await shot(page, 'avatars-stale-1280');
  // Edit only once the page has reloaded (a click before that lands on the page being replaced).
  const loaded = page.waitForEvent('load');
  await first.getByRole('button', { name: 'Reload Page' }).click();
  await loaded;
  const reloaded = await editAvatar(page, id);
  await reloaded.getByRole('tab', { name: 'ADVANCED' }).click();
  await expect(reloaded.getByRole('textbox', { name: 'Wake Up Message' })).toHaveValue('Saved from the second tab');
});

test('leaving an edited avatar asks Unsaved Changes with Discard and Save', async ({ page }) => {
  test.setTimeout(180_000);
  const account = await createVerifiedAccount('avatar-unsaved');
  await openCreator(page, account);
  const id = await createAvatar(page, 'Kenji', 'Unsaved Kenji');
  let panel = await editAvatar(page, id);
  const card = page.getByTestId(`avatar-card-${id}`);
  await card.getByRole('textbox', { name: 'Avatar Name' }).fill('Kenji Renamed');
  await expect(panel.getByText('Unsaved changes')).toBeVisible();
  await card.getByRole('button', { name: 'Close' }).click();
  const dialog = page.getByRole('dialog', { name: 'Unsaved Changes' });
  await expect(dialog).toBeVisible();
  await shot(page, 'avatars-unsaved-1280');
  await dialog.getByRole('button', { name: 'Discard' }).click();
  await expect(panel).toBeHidden();
  await expect(card).toContainText('Unsaved Kenji');

  panel = await editAvatar(page, id);
  await card.getByRole('textbox', { name: 'Avatar Name' }).fill('Kenji Saved');
  // (START is off at the FREE plan's one avatar, so leaving is by Close here.)
  await card.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('dialog', { name: 'Unsaved Changes' }).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Updated Successfully')).toBeVisible();
  await expect(panel).toBeHidden();
  await expect(card).toContainText('Kenji Saved');
});

test('the list on a phone (390 px): Your Avatars with Connect only', async ({ page }) => {
  test.setTimeout(180_000);
  const account = await createVerifiedAccount('avatar-phone');
  await openCreator(page, account);
  const id = await createAvatar(page, 'Sofia', 'Phone Sofia');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/react/avatars?showSearchBar=true');
  await expect(page.getByRole('heading', { name: 'Your Avatars' })).toBeVisible();
  const card = page.getByTestId(`avatar-card-${id}`);
  await expect(card.getByRole('link', { name: 'Connect' })).toHaveAttribute('href', new RegExp(`/avatar/${id}$`));
  await expect(card.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await shot(page, 'avatars-list-390');
  await page.getByRole('link', { name: 'Add Avatar' }).click();
  await expect(page.getByRole('heading', { name: 'Add Avatar' })).toBeVisible();
  await shot(page, 'avatars-add-390');
});

test('the Embed snippet with an access token stays inside its box (1280 and 760 px)', async ({ page }) => {
  test.setTimeout(120_000);
  const account = await createVerifiedAccount('avatar-embed');
  const session = await apiLogin(account.email, account.password);
  const info = await callApi('/api/account_info', undefined, session);
  const keys = (info.json.accountDetails as { encKeys: { id: number; defaultKey: boolean }[] }).encKeys;
  expect(keys.length, 'a new account has its default encryption key').toBeGreaterThan(0);
  // An avatar with an encryption key: its snippet carries a long token (issue 12: it ran out of its box).
  const form = new FormData();
  form.set(
    'json',
    JSON.stringify({
      name: 'Token Tara',
      nlpEngine: 0,
      dhType: 2,
      setupMode: 0,
      wakeUpMessage: 'Hello!',
      dailyLimitPerSession: -1,
      dailyLimitPerIP: -1,
      dailyLimits: { Demo: -1 },
      idleTimeout: 300,
      encKeyId: (keys.find((k) => k.defaultKey) ?? keys[0])!.id,
      avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
    }),
  );
  const appKey = ((await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string }).appKey;
  const created = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${appKey}:${session}` }, body: form });
  const answer = (await created.json()) as { agent?: { id: number } };
  expect(created.status, JSON.stringify(answer)).toBe(200);
  const id = answer.agent!.id;

  await openCreator(page, account);
  const panel = await editAvatar(page, id);
  await panel.getByRole('tab', { name: 'EMBED' }).click();
  const snippet = panel.getByTestId('embed-snippet');
  await expect(snippet).toContainText('token=');
  for (const width of [1280, 760]) {
    await page.setViewportSize({ width, height: 800 });
    await expect(snippet).toBeVisible();
    // Nothing scrolls or spills sideways: the snippet wraps inside its box, and its box inside the panel.
    const sizes = await snippet.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(sizes.scrollWidth, JSON.stringify(sizes)).toBeLessThanOrEqual(sizes.clientWidth);
    const [box, panelBox] = [await snippet.boundingBox(), await panel.boundingBox()];
    expect(box!.x + box!.width).toBeLessThanOrEqual(panelBox!.x + panelBox!.width + 0.5);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await snippet.scrollIntoViewIfNeeded();
    await shot(page, `avatars-embed-token-${width}`);
  }
});

test('full-body 3D thumbnails: the head sits on the body, not floating apart from it', async ({ page }) => {
  const account = await createVerifiedAccount('avatar-thumbs');
  await openCreator(page, account);
  await page.getByRole('button', { name: 'START' }).click();
  const panel = page.getByRole('region', { name: 'Create avatar' });
  await panel.getByRole('tab', { name: 'FULL BODY 3D' }).click();
  const pictures = panel.getByRole('radiogroup').locator('img');
  await expect(pictures.first()).toBeAttached();
  const sources = await pictures.evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).src));
  expect(sources.length).toBeGreaterThanOrEqual(6);
  for (const src of sources) {
    const png = await (await page.request.get(src)).body();
    const figure = await figureGap(page, png);
    // A figure from near the top to near the bottom, in one piece down its middle (the legs meet at the hips).
    expect(figure.bottom - figure.top, `${src}: ${JSON.stringify(figure)}`).toBeGreaterThan(figure.height * 0.6);
    expect(figure.longestGap, `${src}: ${JSON.stringify(figure)}`).toBeLessThanOrEqual(1);
  }
  await shot(page, 'avatars-create-full-body-1280');

  // The check sees the fault it guards against: the same renderer with the head lifted off the neck.
  const person = buildPerson({ id: 'check', skin: '#f1c9a5', hair: '#3b2314', shirt: '#4f46e5', bg: '#e0e7ff', hairStyle: 'short', build: 'm' }, { fullBody: true });
  const floating = await figureGap(page, renderThumbnail({ ...person, headLift: person.headLift + 0.15 }, { fullBody: true, background: '#e0e7ff' }));
  expect(floating.longestGap).toBeGreaterThan(5);
  const attached = await figureGap(page, renderThumbnail(person, { fullBody: true, background: '#e0e7ff' }));
  expect(attached.longestGap).toBeLessThanOrEqual(1);
});
