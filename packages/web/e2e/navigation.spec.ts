import { gzipSync } from 'node:zlib';
import { expect, test, type Response } from '@playwright/test';
import { createVerifiedAccount, type Account } from './support/accounts';
import { focusIndicator, tabTo } from './support/layout';
import { signIn } from './support/pages';

let user: Account;

test.beforeAll(async () => {
  user = await createVerifiedAccount('nav');
});

test('at 390 px the menu is a right-hand drawer behind a hamburger button', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);

  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await page.getByRole('button', { name: 'Open menu' }).click();
  const drawer = page.getByRole('navigation', { name: 'Menu' });
  await expect(drawer).toBeVisible();
  expect((await drawer.getByRole('link').allInnerTexts()).map((t) => t.trim())).toEqual([
    'Avatar Creator',
    'Conversations',
    'Knowledge Base',
    'Functions',
    'Encryption Keys',
    'Account',
    'Docs',
    'Sign Out',
  ]);
  const box = await drawer.boundingBox();
  expect(box && box.x + box.width).toBeGreaterThan(385); // anchored to the right edge
  expect(box && box.x).toBeGreaterThan(40);

  await drawer.getByRole('link', { name: 'Knowledge Base' }).click();
  await expect(page).toHaveURL(/\/react\/knowledgeBase$/);
  await expect(drawer).toBeHidden();
});

test('the drawer appears below 760 px and the top-bar menu from 760 px', async ({ page }) => {
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.setViewportSize({ width: 759, height: 800 });
  await expect(page.getByRole('button', { name: 'Open menu' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await page.setViewportSize({ width: 760, height: 800 });
  await expect(page.getByRole('button', { name: 'Open menu' })).toBeHidden();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
});

test('keyboard focus is visible: a menu link and an icon button show a ring of 3:1 or more', async ({ page }) => {
  // Issue 12: focus on menu links and icon buttons was a faint grey fill.
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Functions' });
  await tabTo(page, link);
  await expect(link).toBeFocused();
  const onLink = await focusIndicator(link);
  expect(onLink.widthPx, JSON.stringify(onLink)).toBeGreaterThanOrEqual(2);
  expect(onLink.contrast, JSON.stringify(onLink)).toBeGreaterThanOrEqual(3);
  await link.screenshot({ path: test.info().outputPath('focus-menu-link.png') });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  const menuButton = page.getByRole('button', { name: 'Open menu' });
  await expect(menuButton).toBeVisible();
  await tabTo(page, menuButton);
  const onIcon = await focusIndicator(menuButton);
  expect(onIcon.widthPx, JSON.stringify(onIcon)).toBeGreaterThanOrEqual(2);
  expect(onIcon.contrast, JSON.stringify(onIcon)).toBeGreaterThanOrEqual(3);

  // In the drawer too: its links and its Close icon button.
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('navigation', { name: 'Menu' });
  await expect(drawer).toBeVisible();
  const close = page.getByRole('button', { name: 'Close menu' });
  await tabTo(page, close, 12);
  const onClose = await focusIndicator(close);
  expect(onClose.widthPx, JSON.stringify(onClose)).toBeGreaterThanOrEqual(2);
  expect(onClose.contrast, JSON.stringify(onClose)).toBeGreaterThanOrEqual(3);
  const drawerLink = drawer.getByRole('link', { name: 'Account' });
  await tabTo(page, drawerLink, 12);
  const onDrawerLink = await focusIndicator(drawerLink);
  expect(onDrawerLink.widthPx, JSON.stringify(onDrawerLink)).toBeGreaterThanOrEqual(2);
  expect(onDrawerLink.contrast, JSON.stringify(onDrawerLink)).toBeGreaterThanOrEqual(3);
  await page.screenshot({ path: test.info().outputPath('focus-drawer-390.png') });
});

test('the footer shows the year and the company', async ({ page }) => {
  await page.goto('/react/login');
  await expect(page.getByText(`© ${new Date().getFullYear()} Persona Studio E2E Ltd`)).toBeVisible();
});

test('/ sends a signed-out visitor to sign in, and unknown pages say not found', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/react\/login$/);
  await page.goto('/react/this/does/not/exist');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
});

test('the sign-in page downloads none of the other pages', async ({ page }) => {
  const scripts: Response[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.push(response);
  });
  await page.goto('/react/login', { waitUntil: 'networkidle' });
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
  const names = scripts.map((response) => new URL(response.url()).pathname.split('/').pop() ?? '');
  let gzipBytes = 0;
  for (const response of scripts) gzipBytes += gzipSync(await response.body(), { level: 9 }).length;
  const kb = (gzipBytes / 1024).toFixed(1);
  test.info().annotations.push({ type: 'login JS (gzip)', description: `${kb} KB in ${scripts.length} files` });
  console.log(`/react/login downloads ${kb} KB of gzipped JS in ${scripts.length} files`);
  expect(names.some((name) => name.startsWith('login-'))).toBe(true);
  for (const other of ['docs-', 'avatars-', 'register-', 'reset-password-', 'account-', 'online-users-', 'nav-drawer-']) {
    expect(names.filter((name) => name.startsWith(other)), `${other}* must not load on /react/login`).toEqual([]);
  }
});
