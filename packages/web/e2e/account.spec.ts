import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { adminAccount, apiLogin, callApi, createVerifiedAccount } from './support/accounts';
import { expectAccessible } from './support/axe';
import { linkIn, waitForMail } from './support/mailbox';
import { signIn } from './support/pages';

// The Account page: details, plan dialog, billing report; the plan request's e-mail round trip
// through an administrator; screenshots at desktop and phone width.
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

async function shot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  // Each page shot is also checked with axe-core (ADR 050).
  await expectAccessible(page, name);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const sampleStats = {
  status: 'OK',
  billingData: [
    { avatarName: 'Maya — Support', avatarId: 101, totalCallDuration: 184.25, totalCallCount: 61 },
    { avatarName: 'Leo the Sales Assistant With a Long Name', avatarId: 102, totalCallDuration: 96.5, totalCallCount: 40 },
    { avatarName: 'Nora', avatarId: 103, totalCallDuration: 12.75, totalCallCount: 9 },
  ],
  cummulativeData: { totalCallDuration: 293.5, totalCallCount: 110 },
};

for (const width of [1280, 390]) {
  test(`the Account page at ${width} px: details, billing report, plan dialog`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    const user = await createVerifiedAccount(`account-${width}`);
    await signIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/react\/avatars$/);
    await page.goto('/react/account');

    const details = page.getByRole('region', { name: 'Account Details' });
    await expect(details).toContainText(user.email, { timeout: 20_000 });
    for (const label of ['Customer ID', 'Name', 'Email', 'Status', 'Created', 'Subscription plan', 'Subscribed since']) {
      await expect(details.getByText(label, { exact: true })).toBeVisible();
    }
    await expect(details).toContainText('FREE');
    const billing = page.getByRole('region', { name: 'Billing Report' });
    await expect(billing.getByText('No calls in this period.')).toBeVisible();
    await expect(billing.getByRole('row').last()).toContainText('Σ');
    await shot(page, `account-${width}`);

    // Dates: a start after the end is refused before anything is sent.
    await billing.getByLabel('Start date').fill('2025-06-10');
    await billing.getByLabel('End date').fill('2025-06-01');
    await expect(billing.getByText('Start date cannot be greater than end date.')).toBeVisible();
    await expect(billing.getByRole('button', { name: 'Search' })).toBeDisabled();
    await shot(page, `account-billing-invalid-${width}`);
    await billing.getByLabel('End date').fill('2025-07-01');
    const searched = page.waitForResponse((r) => r.url().includes('/api/account_stats?') && r.status() === 200);
    await billing.getByRole('button', { name: 'Search' }).click();
    expect(new URL((await searched).url()).searchParams.get('startDate')).toBe(String(new Date(2025, 5, 10).getTime()));

    // The table, totals and chart with usage (the live runtime writes call records in a later issue).
    await page.route('**/api/account_stats?*', (route) => route.fulfill({ json: sampleStats }));
    await page.reload();
    await expect(billing.getByRole('cell', { name: 'Maya — Support' })).toBeVisible();
    await expect(billing.getByRole('row').last()).toContainText('293.50');
    await expect(billing.getByRole('img', { name: 'Bar chart of minutes per avatar' }).locator('svg').first()).toBeVisible();
    const download = page.waitForEvent('download');
    await billing.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^billing-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync(await file.path(), 'utf8');
    expect(csv).toContain('1,Maya — Support,101,184.25,61');
    expect(csv).toContain('Σ,Total,,293.5,110');
    await page.waitForTimeout(600); // the chart animates in
    await shot(page, `account-billing-data-${width}`);
    await page.unroute('**/api/account_stats?*');

    await page.getByRole('button', { name: 'Change Subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change Subscription' });
    await expect(dialog.getByRole('button', { name: 'Request Upgrade' })).toBeDisabled();
    await dialog.getByText('STARTER', { exact: true }).click();
    await expect(dialog.getByRole('button', { name: 'Request Upgrade' })).toBeEnabled();
    await page.waitForTimeout(300);
    await dialog.screenshot({ path: path.join(shots, `account-plan-dialog-${width}.png`) });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
}

test('a plan request goes to the administrators by e-mail; confirmed on Requests, the user gets the plan and a mail', async ({ page, browser }) => {
  test.setTimeout(90_000);
  const user = await createVerifiedAccount('plan-trip');
  const admin = adminAccount();
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.goto('/react/account');

  const since = Date.now();
  await page.getByRole('button', { name: 'Change Subscription' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change Subscription' });
  await dialog.getByText('PRO', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Request Upgrade' }).click();
  const sent = page.getByRole('dialog', { name: 'Request Sent' });
  await expect(sent).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('REQUESTED: PRO')).toBeVisible();
  await shot(page, 'account-request-sent-1280');
  // 'Request Sent' closes by itself after 3 s.
  await expect(sent).toBeHidden({ timeout: 5_000 });

  // With a request pending, the choice is locked.
  await page.getByRole('button', { name: 'Change Subscription' }).click();
  await expect(dialog.getByTestId('plan-option-PRO')).toContainText('REQUESTED');
  await expect(dialog.getByRole('radio', { name: 'ENTERPRISE' })).toBeDisabled();
  await expect(dialog.getByRole('button', { name: 'Request Upgrade' })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // The administrator follows the link in the e-mail, signs in and lands on the highlighted request.
  const mail = await waitForMail(admin.email, { since, text: user.email });
  const link = linkIn(mail, '/react/requests?id=');
  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await adminPage.goto(link);
  await expect(adminPage).toHaveURL(/\/react\/login$/);
  await signIn(adminPage, admin.email, admin.password);
  await expect(adminPage).toHaveURL(new RegExp(`${escape(new URL(link).pathname + new URL(link).search)}$`));
  const requestId = new URL(link).searchParams.get('id');
  const card = adminPage.getByRole('listitem', { name: `Plan request ${requestId}` });
  await expect(card).toHaveAttribute('aria-current', 'true');
  await expect(card).toContainText('From the e-mail link');
  await expect(card).toContainText(user.email);
  await expect(card).toContainText('FREE');
  await expect(card).toContainText('PRO');
  await shot(adminPage, 'admin-requests-plan-1280');

  const userSince = Date.now();
  await card.getByRole('button', { name: 'Confirm' }).click();
  const confirm = adminPage.getByRole('dialog', { name: 'Confirm plan change?' });
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(adminPage.getByText(`${user.email} is now on PRO.`)).toBeVisible();
  const history = adminPage.getByRole('region', { name: 'History' });
  await expect(history.getByRole('listitem', { name: `Plan request ${requestId}` })).toContainText('CONFIRMED');
  await adminContext.close();

  const confirmation = await waitForMail(user.email, { since: userSince, subject: /plan/i });
  expect(confirmation.text).toContain('PRO');
  await page.reload();
  const details = page.getByRole('region', { name: 'Account Details' });
  await expect(details).toContainText('PRO');
  await expect(page.getByText(/REQUESTED:/)).toBeHidden();
});

test('the plan request failure text when the server refuses', async ({ page }) => {
  const user = await createVerifiedAccount('plan-fail');
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  // Another tab already asked for a change.
  const token = await apiLogin(user.email, user.password);
  expect((await callApi('/api/account_upgrade', { subType: 3, dhType: 2 }, token)).status).toBe(200);
  await page.route('**/api/account_info', async (route) => {
    // The page still believes nothing is pending (it loaded before the other tab's request).
    const answer = await route.fetch();
    const body = (await answer.json()) as { accountDetails: Record<string, unknown> };
    body.accountDetails.requestedSubType = null;
    await route.fulfill({ response: answer, json: body });
  });
  await page.goto('/react/account');
  await page.getByRole('button', { name: 'Change Subscription' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change Subscription' });
  await dialog.getByText('ENTERPRISE', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Request Upgrade' }).click();
  await expect(page.getByText('An error occurred while processing your subscription request. Please try again later.')).toBeVisible();
  await expect(dialog).toBeHidden();
});

for (const width of [1280, 390]) {
  test(`My Online Users at ${width} px: each avatar's visitors, and the page without avatars`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    const user = await createVerifiedAccount(`my-online-${width}`);
    await signIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/react\/avatars$/);
    await page.goto('/react/myonlineusers');
    await expect(page.getByText('You have no avatars yet')).toBeVisible();
    await shot(page, `my-online-users-empty-${width}`);

    // Live sessions are written by the avatar runtime of a later issue: the answers are stood in for here.
    await page.route('**/api/list_avatar', (route) =>
      route.fulfill({ json: { status: 'OK', agents: [{ id: 501, name: 'Maya — Support' }, { id: 502, name: 'Leo' }] } }),
    );
    await page.route('**/api/list_avatar_users', async (route) => {
      const { agentId } = route.request().postDataJSON() as { agentId: number };
      const onlineUsers =
        agentId === 501
          ? [
              { sessionId: 'c0a8012e-7d1f-4c55-9a0e-2f4f0b1d9a11', userName: 'Visitor from Berlin', deviceOS: 'macOS', onlineStatus: 'online', locale: 'de-DE', lastConnectTimeStamp: Date.now() - 120_000, ipAddress: '203.0.113.7', spokenLanguage: 'de-DE' },
              { sessionId: '5b2e9d44-1a7c-4f0e-8c3d-6e1a2b3c4d5e', userName: 'Sam', deviceOS: 'iOS', onlineStatus: 'online', locale: 'en-GB', lastConnectTimeStamp: Date.now() - 30_000, ipAddress: '198.51.100.4', spokenLanguage: 'en-US' },
            ]
          : [];
      await route.fulfill({ json: { agentId, status: 'OK', onlineUsers, errors: [] } });
    });
    await page.reload();
    await expect(page.getByRole('region', { name: 'Online users of Maya — Support' }).getByText('Visitor from Berlin')).toBeVisible();
    await expect(page.getByRole('region', { name: 'Online users of Leo' }).getByText('Nobody is talking to this avatar right now.')).toBeVisible();
    await expect(page.getByText('2 people are online across your 2 avatars.')).toBeVisible();
    await shot(page, `my-online-users-${width}`);
  });
}
