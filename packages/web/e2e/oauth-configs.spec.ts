import { expect, test } from '@playwright/test';
import { createVerifiedAccount } from './support/accounts';
import { signIn } from './support/pages';
import { shot, useWidth, WIDTHS } from './support/screenshots';

const CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';

for (const width of WIDTHS) {
  test(`OAuth config: create, edit and delete through the wizard at ${width} px`, async ({ page }) => {
    test.setTimeout(90_000);
    await useWidth(page, width);
    const user = await createVerifiedAccount(`oauth-${width}`);
    await signIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/react\/avatars$/);

    await page.goto('/react/oauthconfigs');
    await expect(page.getByText('No OAuth Configs found.')).toBeVisible();
    await shot(page, 'oauth-configs-empty');

    await page.getByRole('link', { name: 'Create OAuth Config' }).click();
    await expect(page).toHaveURL(/\/react\/addoauthapp$/);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByText('Name is required')).toBeVisible();
    await expect(page.getByText('OAuth Identity Service is required')).toBeVisible();
    await shot(page, 'oauth-wizard-step0-errors');

    await page.getByLabel('Name').fill('Staff sign-in');
    await expect(page.getByText('Name is required')).toBeHidden();
    await page.getByLabel('OAuth Identity Service').click();
    await page.getByRole('option', { name: 'Google' }).click();
    // The step title opens the step (after checking the one before).
    await page.getByRole('tab', { name: 'OAuth Details' }).click();
    await expect(page.getByLabel('OAuth URL')).toHaveValue('https://accounts.google.com/o/oauth2/v2/auth');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByText('Client Id is required')).toBeVisible();
    await expect(page.getByText('Client Secret is required')).toBeVisible();
    await page.getByLabel('Client Id').fill(CLIENT_ID);
    await page.getByLabel('Client Secret').fill('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');
    await shot(page, 'oauth-wizard-step1');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByText('The OAuth config has been created successfully!')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: '/api/oauth/callback/' })).toBeVisible();
    await shot(page, 'oauth-wizard-success');

    // Back to the list after 3 s.
    await expect(page).toHaveURL(/\/react\/oauthconfigs$/, { timeout: 6_000 });
    const card = page.getByRole('listitem', { name: 'Staff sign-in' });
    await expect(card).toBeVisible();
    await expect(card.getByText(`${CLIENT_ID.slice(0, 30)}…`)).toBeVisible();
    await expect(card.getByText('••••1234')).toBeVisible();
    await expect(card.getByText('GOCSPX')).toHaveCount(0);
    await shot(page, 'oauth-configs-list');

    // Edit: the wizard in a dialog, with the Callback URL step; closes 3 s after saving.
    await card.getByRole('button', { name: 'Edit Staff sign-in' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Customer sign-in');
    await dialog.getByRole('button', { name: 'Next' }).click();
    await expect(dialog.getByLabel('Callback URL')).toHaveValue(/\/api\/oauth\/callback\/\d+$/);
    await shot(page, 'oauth-edit-callback');
    await dialog.getByRole('button', { name: 'Next' }).click();
    await expect(dialog.getByText('Leave empty to keep the current secret (••••1234).')).toBeVisible();
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await expect(dialog.getByText('The OAuth config has been updated successfully!')).toBeVisible();
    await expect(dialog).toBeHidden({ timeout: 6_000 });
    const renamed = page.getByRole('listitem', { name: 'Customer sign-in' });
    await expect(renamed).toBeVisible();
    await expect(renamed.getByText('••••1234')).toBeVisible();

    await renamed.getByRole('button', { name: 'Delete Customer sign-in' }).click();
    await expect(page.getByRole('dialog')).toContainText('Are you sure you want to delete "Customer sign-in"?');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('The OAuth config has been deleted successfully!')).toBeVisible();
    await expect(page.getByText('No OAuth Configs found.')).toBeVisible();

    await page.goto('/react/oauthhelp');
    await expect(page.getByRole('heading', { name: 'Google: where the values come from' })).toBeVisible();
    await shot(page, 'oauth-help');
  });
}
