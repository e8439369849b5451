import { createPrivateKey, sign } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { createVerifiedAccount } from './support/accounts';
import { signIn } from './support/pages';
import { shot, useWidth, WIDTHS } from './support/screenshots';

for (const width of WIDTHS) {
  test(`encryption keys: create a key, copy it once, delete it at ${width} px`, async ({ page, context, baseURL }) => {
    test.setTimeout(90_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
    await useWidth(page, width);
    const user = await createVerifiedAccount(`keys-${width}`);
    await signIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/react\/avatars$/);

    await page.goto('/react/encryptionKeys');
    const defaultCard = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Default Key' }) });
    await expect(defaultCard).toBeVisible();
    await expect(defaultCard.getByRole('button', { name: /Delete/ })).toHaveCount(0);

    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(page.getByText('Name is a required field.')).toBeVisible();
    await shot(page, 'encryption-keys-create');
    await page.getByLabel('Encryption Name').fill('Website');
    await page.getByRole('button', { name: 'Create', exact: true }).click();

    const privateKey = page.getByLabel('Private key');
    await expect(privateKey).toContainText('-----BEGIN PRIVATE KEY-----');
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect(page.getByText('Encryption Key Copied!')).toBeVisible();
    await shot(page, 'encryption-keys-created');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('-----BEGIN PRIVATE KEY-----');
    // The notice goes after 2 s.
    await expect(page.getByText('Encryption Key Copied!')).toBeHidden({ timeout: 4_000 });

    // The copied key is a working ES256 key (the docs' Node example signs with it).
    const signature = sign('sha256', Buffer.from('x'), { key: createPrivateKey(copied), dsaEncoding: 'ieee-p1363' });
    expect(signature).toHaveLength(64);

    // Shown once: after Done it is gone, and viewing the key never shows it.
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByLabel('Private key')).toHaveCount(0);
    await page.getByRole('button', { name: 'View Website' }).click();
    await expect(page.getByText('BEGIN PUBLIC KEY')).toBeVisible();
    await expect(page.getByText('PRIVATE KEY')).toHaveCount(0);
    await shot(page, 'encryption-keys-view');

    await page.getByRole('button', { name: 'Delete Website' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('The encryption key has been deleted successfully!')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Website' })).toHaveCount(0);
  });
}
