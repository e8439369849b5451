import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { adminAccount, apiLogin, callApi, createVerifiedAccount } from './support/accounts';
import { linkIn, waitForMail } from './support/mailbox';
import { signIn } from './support/pages';

// Every page at desktop and phone width, into e2e/screenshots/ (gitignored) for a visual review.
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

for (const width of [1280, 390]) {
  test(`screenshots at ${width} px`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    fs.mkdirSync(dir, { recursive: true });
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    const shot = async (name: string, target: Page = page) => {
      await target.waitForLoadState('networkidle');
      await target.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
    };

    await page.goto('/react/login');
    await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
    await shot('login');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Password is required')).toBeVisible();
    await shot('login-validation');
    await signIn(page, 'nobody@e2e.test', 'wrong-password');
    await expect(page.getByRole('alert')).toBeVisible();
    await shot('login-failed');

    await page.goto('/react/register');
    await expect(page.getByRole('button', { name: 'Register' })).toBeVisible();
    await shot('register');

    await page.goto('/react/forgotpassword');
    await expect(page.getByRole('button', { name: 'Send Reset Link' })).toBeVisible();
    await shot('forgot-password');

    const account = await createVerifiedAccount(`shots-${width}`);
    const since = Date.now();
    await page.getByLabel('Email').fill(account.email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect(page.getByRole('heading', { name: 'Email sent' })).toBeVisible();
    await shot('forgot-password-sent');

    const link = linkIn(await waitForMail(account.email, { since, subject: /reset|password/i }), '/react/reset-password/');
    await page.goto(link);
    await expect(page.getByRole('button', { name: 'Reset Password' })).toBeVisible();
    await shot('reset-password-form');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expect(page.getByText('Password is required')).toBeVisible();
    await shot('reset-password-validation');
    await page.getByLabel('New Password').fill('new-password-for-shots');
    await page.getByLabel('New Password').press('Enter');
    await expect(page.getByText(/Password has been reset for/)).toBeVisible();
    await shot('reset-password-done');
    await page.goto('/react/reset-password/bogus');
    await expect(page.getByRole('heading', { name: 'Invalid Code' })).toBeVisible();
    await shot('reset-password-invalid');

    await page.goto('/react/email-verification/bogus');
    await expect(page.getByRole('link', { name: 'Back to Sign In' })).toBeVisible();
    await shot('email-verification-failed');

    await page.goto('/react/docs');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await shot('docs');
    await page.screenshot({ path: path.join(dir, `docs-top-${width}.png`) });
    await page.locator('#embed').screenshot({ path: path.join(dir, `docs-embed-${width}.png`) });
    await page.locator('#account').screenshot({ path: path.join(dir, `docs-account-${width}.png`) });
    await page.goto('/react/nowhere');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await shot('not-found');

    await signIn(page, account.email, 'new-password-for-shots');
    await expect(page).toHaveURL(/\/react\/avatars$/);
    await shot('user-avatars');
    if (width > 760) {
      // The narrowest width that still shows the top-bar menu.
      await page.setViewportSize({ width: 760, height: 600 });
      await page.screenshot({ path: path.join(dir, 'user-topbar-760.png') });
      await page.setViewportSize({ width, height: 800 });
    }
    await page.goto('/react/account');
    await expect(page.getByRole('heading', { name: 'Account', level: 1 })).toBeVisible();
    await shot('user-account');
    if (width < 760) {
      await page.getByRole('button', { name: 'Open menu' }).click();
      await expect(page.getByRole('navigation', { name: 'Menu' })).toBeVisible();
      await page.waitForTimeout(400); // let the slide-in finish
      await page.screenshot({ path: path.join(dir, `user-drawer-${width}.png`) });
      await page.keyboard.press('Escape');
    }
    await page.goto('/react/signout');
    await expect(page.getByRole('heading', { name: 'You have been logged out' })).toBeVisible();
    await shot('signed-out');

    const admin = adminAccount();
    await signIn(page, admin.email, admin.password);
    await expect(page).toHaveURL(/\/react\/onlineusers$/);
    await shot('admin-online-users');

    const adminSessionId = await apiLogin(admin.email, admin.password);
    const proxy = await browser.newContext({ viewport: { width, height: 800 } });
    const proxyPage = await proxy.newPage();
    await proxyPage.goto(`/react/login?adminSessionId=${encodeURIComponent(adminSessionId)}&email=${encodeURIComponent(account.email)}`);
    await expect(proxyPage.getByText('on behalf of an administrator')).toBeVisible();
    await shot('admin-login-as', proxyPage);
    await proxy.close();
    await callApi('/api/logout', undefined, adminSessionId);
  });
}
