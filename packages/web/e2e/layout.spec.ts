import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { adminAccount, apiLogin, callApi, createVerifiedAccount, type Account } from './support/accounts';
import { openEditor, signIn } from './support/pages';

// Issue 26 (15): the avatar list and the Embed tab at real sizes, with several avatars: nothing
// clipped inside a card, no table that needs sideways scrolling in the editor. Screenshots go to
// e2e/screenshots/layout-*.png for a look.
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

/** A PRO account (10 avatars) holding `names.length` avatars of every kind, made through the API. */
async function accountWithAvatars(names: { name: string; dhType: number; look: string }[]): Promise<{ account: Account; ids: number[] }> {
  const account = await createVerifiedAccount('layout');
  const session = await apiLogin(account.email, account.password);
  const asked = await callApi('/api/account_upgrade', { subType: 2, dhType: 2 }, session);
  expect(asked.status, JSON.stringify(asked.json)).toBe(200);
  const admin = await apiLogin(adminAccount().email, adminAccount().password);
  const pending = await callApi('/api/admin/plan_requests?status=PENDING', undefined, admin);
  const request = (pending.json.requests as { id: number; email?: string; userEmail?: string }[]).find((r) => JSON.stringify(r).includes(account.email))!;
  expect((await callApi('/api/admin/plan_requests/decide', { requestId: request.id, decision: 'confirm' }, admin)).status).toBe(200);
  const ids: number[] = [];
  for (const a of names) {
    const created = await callApi(
      '/api/add_avatar',
      {
        name: a.name,
        nlpEngine: 0,
        dhType: a.dhType,
        setupMode: 0,
        wakeUpMessage: 'Hello!',
        dailyLimitPerSession: -1,
        dailyLimitPerIP: -1,
        dailyLimits: { Demo: -1 },
        idleTimeout: 300,
        avatarJson: JSON.stringify({ ParentConfig: `/catalog/avatar-configs/${a.look}.json` }),
      },
      session,
    );
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    ids.push((created.json.agent as { id: number }).id);
  }
  return { account, ids };
}

/** Every part of a card lies inside the card, and nothing in it is cut by its own box. */
async function clippedInCard(card: Locator): Promise<string[]> {
  return card.evaluate((root) => {
    const problems: string[] = [];
    const box = root.getBoundingClientRect();
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
    // The card shows all it holds: its content is not taller than the card.
    if (root.scrollHeight > root.clientHeight + 1) problems.push(`the card's content is ${root.scrollHeight} px tall in ${root.clientHeight} px`);
    for (const el of Array.from(root.querySelectorAll('img, .MuiAvatar-root, .MuiTypography-root, button, a'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5 || r.left < box.left - 0.5 || r.right > box.right + 0.5) {
        problems.push(`${name(el)} (${Math.round(r.top)}–${Math.round(r.bottom)}) is outside its card (${Math.round(box.top)}–${Math.round(box.bottom)})`);
      }
    }
    return problems;
  });
}

/**
 * The card's id line ("ID 12 · Upper body") as drawn: every separator dot that can be seen has
 * something on its line on both sides — none dangles at the end (or start) of a line when the
 * line wraps in a narrow card or a part is empty.
 */
async function danglingSeparators(card: Locator): Promise<string[]> {
  const line = card.locator('.MuiTypography-caption').filter({ hasText: /ID \d+/ }).first();
  return line.evaluate((root) => {
    const box = root.getBoundingClientRect();
    const glyphs: { ch: string; left: number; right: number; mid: number }[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        if (!text[i]!.trim()) continue;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        // Clipped away by the line's box: not seen.
        if (r.width === 0 || r.right <= box.left + 0.5 || r.left >= box.right - 0.5) continue;
        glyphs.push({ ch: text[i]!, left: r.left, right: r.right, mid: (r.top + r.bottom) / 2 });
      }
    }
    const problems: string[] = [];
    for (const g of glyphs.filter((x) => x.ch === '·')) {
      const sameLine = glyphs.filter((x) => x.ch !== '·' && Math.abs(x.mid - g.mid) < 4);
      const before = sameLine.some((x) => x.right <= g.left + 0.5);
      const after = sameLine.some((x) => x.left >= g.right - 0.5);
      if (!before || !after) problems.push(`"${(root.textContent ?? '').trim()}": a "·" with nothing ${before ? 'after' : 'before'} it on its line`);
    }
    return problems;
  });
}

async function expectCardsWhole(page: Page, ids: number[]) {
  for (const id of ids) {
    const card = page.getByTestId(`avatar-card-${id}`);
    await card.scrollIntoViewIfNeeded();
    expect.soft(await clippedInCard(card), `avatar card ${id}`).toEqual([]);
    expect.soft(await danglingSeparators(card), `avatar card ${id}'s id line`).toEqual([]);
  }
}

const AVATARS = [
  { name: 'Maya', dhType: 2, look: 'maya-upper' },
  { name: 'Leo the very long-named receptionist of the north office', dhType: 3, look: 'leo-full' },
  { name: 'Amara', dhType: 1, look: 'amara-image' },
  { name: 'Kenji', dhType: 2, look: 'kenji-upper' },
  { name: 'Sofia', dhType: 3, look: 'sofia-full' },
  { name: 'Omar', dhType: 2, look: 'omar-upper' },
  { name: 'Maya two', dhType: 1, look: 'maya-image' },
];

test('the avatar list with several avatars: no card clips its content, at 1280 and 390 px', async ({ page }) => {
  test.setTimeout(120_000);
  fs.mkdirSync(shots, { recursive: true });
  const { account, ids } = await accountWithAvatars(AVATARS);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  for (const id of ids) await expect(page.getByTestId(`avatar-card-${id}`)).toBeVisible();
  await page.screenshot({ path: path.join(shots, 'layout-avatar-list-1280.png') });
  await expectCardsWhole(page, ids);
  // An expanded card too (its details and buttons).
  await page.getByTestId(`avatar-card-${ids[1]}`).getByRole('button', { name: /^Expand / }).click();
  await expect(page.getByTestId(`avatar-card-${ids[1]}`).getByRole('link', { name: 'Connect' })).toBeVisible();
  await page.waitForTimeout(300); // the Collapse's animation
  await page.screenshot({ path: path.join(shots, 'layout-avatar-list-expanded-1280.png') });
  await expectCardsWhole(page, ids);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  for (const id of ids) await expect(page.getByTestId(`avatar-card-${id}`)).toBeAttached();
  await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => {});
  await page.screenshot({ path: path.join(shots, 'layout-avatar-list-390.png'), fullPage: true });
  await expectCardsWhole(page, ids);
});

test('the Embed tab at 1280 px: the URL parameters fit the panel without sideways scrolling', async ({ page }) => {
  test.setTimeout(120_000);
  fs.mkdirSync(shots, { recursive: true });
  const { account, ids } = await accountWithAvatars(AVATARS.slice(0, 3));
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const card = page.getByTestId(`avatar-card-${ids[0]}`);
  await expect(card).toBeVisible();
  const edit = card.getByRole('button', { name: 'Edit' });
  if (!(await edit.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  const panel = await openEditor(page, edit);
  await panel.getByRole('tab', { name: 'EMBED' }).click();
  const table = panel.getByRole('table', { name: 'URL parameters' });
  await expect(table).toBeVisible();
  await page.screenshot({ path: path.join(shots, 'layout-embed-1280.png'), fullPage: true });
  // The table's box is no wider than the panel's, and nothing in it scrolls sideways.
  const sizes = await table.evaluate((el) => {
    let scroller: HTMLElement | null = el.parentElement;
    while (scroller && getComputedStyle(scroller).overflowX === 'visible') scroller = scroller.parentElement;
    return { tableWidth: el.scrollWidth, boxWidth: scroller?.clientWidth ?? 0, boxScrollWidth: scroller?.scrollWidth ?? 0 };
  });
  expect.soft(sizes.boxScrollWidth, JSON.stringify(sizes)).toBeLessThanOrEqual(sizes.boxWidth);
  const [tableBox, panelBox] = [await table.boundingBox(), await panel.boundingBox()];
  expect(tableBox!.x + tableBox!.width).toBeLessThanOrEqual(panelBox!.x + panelBox!.width + 0.5);
});
