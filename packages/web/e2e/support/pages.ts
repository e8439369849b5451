import { expect, type BrowserContext, type Locator, type Page } from '@playwright/test';

/** Fills the sign-in form and submits it. */
export async function signIn(page: Page, email: string, password: string, { rememberMe = true } = {}) {
  if (!page.url().includes('/react/login')) await page.goto('/react/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  const remember = page.getByRole('checkbox', { name: 'Remember me' });
  if ((await remember.isChecked()) !== rememberMe) await remember.click();
  await page.getByRole('button', { name: 'Sign In' }).click();
}

/** The desktop top-bar menu's entries. */
export async function mainMenu(page: Page): Promise<string[]> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeVisible();
  // The external Docs link carries a visually hidden '(opens in a new tab)'.
  return (await nav.getByRole('link').allInnerTexts()).map((text) => text.replace('(opens in a new tab)', '').trim());
}

/**
 * Clicks a link that opens a new tab and returns the tab. A click can be lost while the link is
 * still moving into place (a card expanding on a busy machine: pressed on the link, released
 * beside it, CI saw no tab in 2 minutes), so it is tried again.
 */
export async function clickForNewTab(context: BrowserContext, link: Locator): Promise<Page> {
  for (let attempt = 1; ; attempt++) {
    const opened = context.waitForEvent('page', { timeout: 15_000 });
    await link.click();
    try {
      return await opened;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

/**
 * Clicks the card's Edit and waits for the editor; clicks again if it did not open. A click right
 * after a page load can be lost to a layout shift under the pointer (mouse down on Edit, up on
 * the card's details: no click on the button). The avatar list now waits for the plan so that its
 * line and alert no longer push the cards down; this covers what may still move them.
 */
export async function openEditor(page: Page, edit: Locator): Promise<Locator> {
  const panel = page.getByRole('region', { name: 'Edit avatar' });
  for (let attempt = 1; ; attempt++) {
    await edit.click();
    try {
      await expect(panel).toBeVisible({ timeout: attempt < 3 ? 5_000 : 15_000 });
      return panel;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}
