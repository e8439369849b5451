import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { personaGlb } from '../../../scripts/make-personas.mjs';
import { createVerifiedAccount } from './support/accounts';
import { openEditor, signIn } from './support/pages';

// Issue 13: a customer's own VRM uploaded in the Appearance tab, checked by the server, what was
// found shown, chosen as the look, and written into the hosted avatar config the page reads.
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

async function createAndEdit(page: Page) {
  await page.getByRole('button', { name: 'START' }).click();
  const create = page.getByRole('region', { name: 'Create avatar' });
  await create.getByRole('tab', { name: 'UPPER BODY 3D' }).click();
  await create.getByRole('radio', { name: 'Maya', exact: true }).click();
  const created = page.waitForResponse((r) => r.url().endsWith('/api/add_avatar_v2') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'CREATE AVATAR' }).click();
  const { agent } = (await (await created).json()) as { agent: { id: number } };
  await page.getByRole('dialog', { name: 'Avatar created' }).getByRole('button', { name: 'OK' }).click();
  const card = page.getByTestId(`avatar-card-${agent.id}`);
  // Wait for the card as it is drawn (expanded with Edit, or collapsed with Expand) before choosing.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(card.getByRole('button', { name: /^(Edit|Expand .*)$/ }).first()).toBeVisible();
  const edit = card.getByRole('button', { name: 'Edit' });
  if (!(await edit.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  return { id: agent.id, panel: await openEditor(page, edit) };
}

// Desktop only: on phones the portal only views and connects avatars (spec), no editor.
for (const width of [1280, 900]) {
  test(`an own VRM is checked, shown with what it can do, chosen and saved (${width} px)`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height: 900 });
    const person = { id: 'own', skin: '#e0ac69', hair: '#4a2f1b', shirt: '#9333ea', bg: '#e0f2fe', hairStyle: 'long', build: 'f' } as const;
    const vrm = await personaGlb(person, {
      fullBody: false,
      vrm: true,
      rename: { viseme_aa: 'aa', viseme_I: 'ih', viseme_U: 'ou', viseme_E: 'ee', viseme_O: 'oh', eyeBlinkLeft: 'blinkLeft', eyeBlinkRight: 'blinkRight', mouthSmile: 'happy', ...Object.fromEntries(['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR'].map((v) => [`viseme_${v}`, null])) },
    });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'own-model-')), 'me.vrm');
    fs.writeFileSync(file, vrm.bytes);

    const account = await createVerifiedAccount(`own-model-${width}`);
    await page.goto('/react/login');
    await signIn(page, account.email, account.password);
    await expect(page).toHaveURL(/\/react\/avatars$/);
    const { id, panel } = await createAndEdit(page);

    const own = panel.getByRole('region', { name: 'Your own 3D models' });
    await expect(own).toBeVisible();
    await own.getByLabel('Upload your own 3D model').setInputFiles(file);
    const report = own.getByRole('status').filter({ hasText: 'me.vrm' });
    await expect(report).toContainText(/VRM · [\d,]+ vertices · \d+ textures? · lip-sync: VRM mouth expressions · no blink/);
    await expect(own.getByRole('radio', { name: 'me.vrm' })).toHaveAttribute('aria-checked', 'true');
    await expect(panel.getByRole('radio', { name: 'Maya', exact: true })).toHaveAttribute('aria-checked', 'false');
    fs.mkdirSync(shots, { recursive: true });
    await own.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, `own-model-${width}.png`), fullPage: true });

    await panel.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog', { name: 'Confirm Update' }).getByRole('button', { name: 'Update' }).click();
    await expect(page.getByText('Updated Successfully')).toBeVisible();
    const hosted = (await (await page.request.get(`/config/avatars/${id}.json`)).json()) as { Avatar?: { modelURL?: string; format?: string } };
    expect(hosted.Avatar).toMatchObject({ format: 'vrm', modelURL: expect.stringMatching(/\/files\/avatars\/.+\.glb$/) });
    const model = await page.request.get(new URL(hosted.Avatar!.modelURL!, page.url()).pathname);
    expect(model.status()).toBe(200);

    // A catalogue look again drops the own model.
    await panel.getByRole('radio', { name: 'Maya', exact: true }).click();
    await expect(own.getByRole('radio', { name: 'me.vrm' })).toHaveAttribute('aria-checked', 'false');
  });
}
