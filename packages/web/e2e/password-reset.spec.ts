import { expect, test } from '@playwright/test';
import { createVerifiedAccount } from './support/accounts';
import { linkIn, waitForMail } from './support/mailbox';
import { signIn } from './support/pages';

test('forgot password → e-mail → reset → sign in with the new password', async ({ page }) => {
  const account = await createVerifiedAccount('reset');
  const newPassword = 'a-brand-new-password-42';

  await page.goto('/react/login');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/react\/forgotpassword$/);
  // The URL changes before the lazily loaded page replaces the sign-in form (which has its own
  // Email field): wait for the new page, or the address may go into the old form.
  await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible();
  const since = Date.now();
  await page.getByLabel('Email').fill(account.email);
  await page.getByRole('button', { name: 'Send Reset Link' }).click();
  await expect(page.getByRole('heading', { name: 'Email sent' })).toBeVisible();

  const link = linkIn(await waitForMail(account.email, { since, subject: /reset|password/i }), '/react/reset-password/');
  expect(link.startsWith('http://127.0.0.1:')).toBe(true);
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Reset Password' })).toBeVisible();
  await expect(page.getByText(account.email)).toBeVisible();

  const field = page.getByLabel('New Password');
  await page.getByRole('button', { name: 'Show password' }).click();
  await expect(field).toHaveAttribute('type', 'text');
  await field.fill(newPassword);
  await field.press('Enter');
  await expect(
    page.getByText(`Password has been reset for ${account.email} successfully. Proceed with Login.`),
  ).toBeVisible();

  // The link works once.
  const reused = await page.context().newPage();
  await reused.goto(link);
  await expect(reused.getByRole('heading', { name: 'Invalid Code' })).toBeVisible();
  await expect(reused.getByRole('link', { name: 'Send Email Again' })).toBeVisible();
  await reused.close();

  await page.getByRole('link', { name: 'Back to Sign In' }).click();
  await signIn(page, account.email, account.password);
  await expect(page.getByRole('alert')).toContainText('Sigin In Failed');
  await signIn(page, account.email, newPassword);
  await expect(page).toHaveURL(/\/react\/avatars$/);
});

test('a made-up reset link says so', async ({ page }) => {
  await page.goto('/react/reset-password/not-a-real-code');
  await expect(page.getByRole('heading', { name: 'Invalid Code' })).toBeVisible();
  await page.getByRole('link', { name: 'Send Email Again' }).click();
  await expect(page).toHaveURL(/\/react\/forgotpassword$/);
  // The URL changes before the lazily loaded page replaces the sign-in form (which has its own
  // Email field): wait for the new page, or the address may go into the old form.
  await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible();
});
