import { expect, test } from '@playwright/test';
import { adminAccount, callApi, createVerifiedAccount, type Account } from './support/accounts';
import { mainMenu, signIn } from './support/pages';

let user: Account;

test.beforeAll(async () => {
  user = await createVerifiedAccount('sign-in');
});

test('an administrator lands on /react/onlineusers with the admin menu', async ({ page }) => {
  const admin = adminAccount();
  await signIn(page, admin.email, admin.password);
  await expect(page).toHaveURL(/\/react\/onlineusers$/);
  expect(await mainMenu(page)).toEqual(['Online Users', 'VPS Status', 'Users', 'Conversations', 'Requests', 'Account', 'Functions review', 'Sign Out']);
});

test('a user lands on /react/avatars with the user menu', async ({ page }) => {
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  expect(await mainMenu(page)).toEqual([
    'Avatar Creator',
    'Conversations',
    'Knowledge Base',
    'Functions',
    'Encryption Keys',
    'Account',
    'Docs',
    'Sign Out',
  ]);
  await expect(page.getByRole('link', { name: /Docs/ }).first()).toHaveAttribute('target', '_blank');
});

test("a wrong password shows the 'Sigin In Failed' panel", async ({ page }) => {
  await signIn(page, user.email, 'definitely-not-the-password');
  const panel = page.getByRole('alert');
  await expect(panel).toContainText('Sigin In Failed');
  await expect(panel).toContainText('Invalid email or password.');
  await expect(page).toHaveURL(/\/react\/login$/);
});

test('the form says what is missing before calling the server', async ({ page }) => {
  await page.goto('/react/login');
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Email is required')).toBeVisible();
  await expect(page.getByText('Password is required')).toBeVisible();
  await page.getByLabel('Email').fill('not-an-email');
  await expect(page.getByText('Email is Invalid')).toBeVisible();
});

test('a protected URL visited signed out returns there after sign-in', async ({ page }) => {
  await page.goto('/react/encryptionKeys');
  await expect(page).toHaveURL(/\/react\/login$/);
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/encryptionKeys$/);
  await expect(page.getByRole('heading', { name: 'Encryption Keys', level: 1 })).toBeVisible();
});

test('Remember me off survives a reload but not a new browser session', async ({ page, browser }) => {
  await signIn(page, user.email, user.password, { rememberMe: false });
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.reload();
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await expect(page.getByRole('link', { name: 'Sign Out' })).toBeVisible();

  // A browser restart keeps localStorage (the storage state) but not sessionStorage.
  const next = await browser.newContext({ storageState: await page.context().storageState() });
  const again = await next.newPage();
  await again.goto('/react/avatars');
  await expect(again).toHaveURL(/\/react\/login$/);
  await next.close();
});

test('Remember me on survives a new browser session', async ({ page, browser }) => {
  await signIn(page, user.email, user.password, { rememberMe: true });
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const next = await browser.newContext({ storageState: await page.context().storageState() });
  const again = await next.newPage();
  await again.goto('/react/knowledgeBase');
  await expect(again).toHaveURL(/\/react\/knowledgeBase$/);
  await next.close();
});

test('signing out revokes the session and clears the browser', async ({ page }) => {
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem('persona.auth') ?? '{}').token as string);
  await page.getByRole('link', { name: 'Sign Out' }).click();
  await expect(page.getByRole('heading', { name: 'You have been logged out' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('persona.auth'))).toBeNull();
  expect((await callApi('/api/logout', undefined, token)).status).toBe(401);

  await page.getByRole('link', { name: 'Login Again' }).click();
  await expect(page).toHaveURL(/\/react\/login$/);
  await page.goto('/react/account');
  await expect(page).toHaveURL(/\/react\/login$/);
});

test("an administrator signs in as a customer from the Users page: a new tab, this tab only, no secret in any address, ended with the administrator's session", async ({ page, context }) => {
  const admin = adminAccount();
  const addresses: string[] = [];
  context.on('request', (request) => addresses.push(request.url()));
  await signIn(page, admin.email, admin.password);
  await expect(page).toHaveURL(/\/react\/onlineusers$/);
  const adminToken = (await page.evaluate(() => JSON.parse(localStorage.getItem('persona.auth') ?? '{}') as { token?: string })).token!;
  expect(adminToken).toBeTruthy();

  await page.goto('/react/users');
  await page.getByRole('searchbox', { name: 'Search' }).fill(user.email);
  const ticketAnswer = page.waitForResponse((r) => r.url().endsWith('/api/admin/users/login_as'));
  const [tab] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: `Sign in as ${user.email}` }).click()]);
  const ticket = ((await (await ticketAnswer).json()) as { ticket: string }).ticket;
  await expect(tab).toHaveURL(/\/react\/avatars$/);
  await expect(tab.getByText('on behalf of an administrator')).toBeVisible();
  const stored = await tab.evaluate(() => ({ tab: sessionStorage.getItem('persona.auth'), remembered: localStorage.getItem('persona.auth') }));
  expect(JSON.parse(stored.tab ?? '{}')).toMatchObject({ adminProxy: true, userType: 'USER' });
  // The administrator's own remembered session is untouched.
  expect(JSON.parse(stored.remembered ?? '{}')).toMatchObject({ userType: 'ADMIN', token: adminToken });
  // Neither the administrator's session nor the ticket ever travelled in an address.
  expect(addresses.filter((url) => url.includes(adminToken) || url.includes(ticket))).toEqual([]);
  // The ticket was used once.
  expect((await callApi('/api/login', { email: user.email, adminSessionId: ticket })).status).toBe(401);

  // The administrator signs out: the customer's tab is signed out with them.
  await page.goto('/react/signout');
  await expect(page.getByRole('heading', { name: 'You have been logged out' })).toBeVisible();
  await tab.goto('/react/account');
  await expect(tab).toHaveURL(/\/react\/login$/);
});
