import { expect, test } from '@playwright/test';
import { uniqueEmail } from './support/accounts';
import { linkIn, waitForMail } from './support/mailbox';
import { signIn } from './support/pages';

test('registration with e-mail verification (registration enabled)', async ({ page }) => {
  const email = uniqueEmail('register');
  const password = 'register-password-7';

  await page.goto('/react/login');
  await page.getByRole('link', { name: 'Register' }).click();
  await expect(page).toHaveURL(/\/react\/register$/);

  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText('First Name is required')).toBeVisible();
  await expect(page.getByText('Last Name is required')).toBeVisible();

  await page.getByLabel('First Name').fill('Robin');
  await page.getByLabel('Last Name').fill('Example');
  await page.getByLabel('Company Name (optional)').fill('Example Ltd');
  await page.getByLabel('Mobile number (optional)').fill('+44 20 7946 0018');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  const since = Date.now();
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByRole('heading', { name: 'Verification email sent' })).toBeVisible();

  // Not verified yet: sign-in is refused and says why.
  await signIn(page, email, password);
  await expect(page.getByRole('alert')).toContainText('Sigin In Failed');
  await expect(page.getByRole('alert')).toContainText(/verif/i);

  const link = linkIn(await waitForMail(email, { since, subject: /verif/i }), '/react/email-verification/');
  await page.goto(link);
  await expect(page.getByRole('link', { name: 'Back to Sign In' })).toBeVisible();
  await expect(page.getByTestId('verification-error-icon')).toHaveCount(0);

  // The code is single-use.
  const again = await page.context().newPage();
  await again.goto(link);
  await expect(again.getByTestId('verification-error-icon')).toBeVisible();
  await again.close();

  await page.getByRole('link', { name: 'Back to Sign In' }).click();
  await signIn(page, email, password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
});
