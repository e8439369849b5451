import { expect, test, type Page } from '@playwright/test';
import { adminAccount, createVerifiedAccount } from './support/accounts';
import { expectAccessible } from './support/axe';
import { expectToastClearOf, toast } from './support/layout';
import { signIn } from './support/pages';
import { shot as screenshot, useWidth, WIDTHS } from './support/screenshots';

const TEMPLATES = [
  { title: 'Empty function canvas', name: 'my_function' },
  { title: 'Example template', name: 'split_bill' },
  { title: 'Weather', name: 'get_weather' },
  { title: 'SSML', name: 'speak_with_emphasis' },
];

/** A screenshot for the visual review, and the page as it is checked with axe-core. */
async function shot(page: Page, name: string) {
  await screenshot(page, name);
  await expectAccessible(page, `${name}-${page.viewportSize()?.width ?? 0}`);
}

const card = (page: Page, name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });

for (const width of WIDTHS) {
  test(`functions: one from each template, Pending, approved by an admin, then Approved at ${width} px`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    await useWidth(page, width);
    const user = await createVerifiedAccount(`functions-${width}`);
    await signIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/react\/avatars$/);
    await page.goto('/react/functions');
    await expect(page.getByText('No functions yet. Choose a template to create your first one.')).toBeVisible();
    await page.getByRole('button', { name: 'Use Template' }).click();
    await expect(page.getByText('Please select a function template to create a custom function.')).toBeVisible();
    await shot(page, 'functions-chooser');
    // The template cards' titles line up: every title in a row of cards starts at the same height
    // (issue 12: a card with a shorter description had its content centred lower down).
    const titles = await page.getByRole('radiogroup', { name: 'Function template' }).getByRole('radio').evaluateAll((cards) =>
      cards.map((c) => ({ top: c.getBoundingClientRect().top, title: c.querySelector('p')!.getBoundingClientRect().top - c.getBoundingClientRect().top })),
    );
    expect(titles.length).toBeGreaterThanOrEqual(TEMPLATES.length);
    for (const row of new Set(titles.map((t) => Math.round(t.top)))) {
      const inRow = titles.filter((t) => Math.round(t.top) === row).map((t) => t.title);
      expect(Math.max(...inRow) - Math.min(...inRow), `title offsets in the row at ${row}: ${inRow.join(', ')}`).toBeLessThanOrEqual(1);
    }
    if (width > 760) expect(new Set(titles.map((t) => Math.round(t.top))).size, 'two cards a row at desktop width').toBeLessThan(titles.length);

    for (const [index, template] of TEMPLATES.entries()) {
      await page.getByRole('radio', { name: new RegExp(template.title) }).click();
      await page.getByRole('button', { name: 'Use Template' }).click();
      await expect(page.getByLabel('File Name')).toHaveValue(template.name);
      await expect(page.getByRole('button', { name: 'Choose Another Template' })).toBeVisible();
      await expect(page.locator('.cm-content')).toContainText(`def ${template.name}(`);
      if (index === 1) await shot(page, 'functions-editor');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await expect(page.getByText('The function has been created successfully!').first()).toBeVisible();
      await expect(card(page, template.name).getByText('Pending')).toBeVisible();
      // Back in create mode: the chooser again.
      await expect(page.getByRole('button', { name: 'Use Template' })).toBeVisible();
    }
    await expect(card(page, 'get_weather').getByText('Last Admin Update Date:')).toBeVisible();
    await shot(page, 'functions-pending');

    // Editing: no 'Choose Another Template'; a syntax error comes back with its line.
    await card(page, 'split_bill').getByRole('button', { name: 'Edit split_bill' }).click();
    await expect(page.getByRole('button', { name: 'Choose Another Template' })).toHaveCount(0);
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+End');
    // (Brackets would be closed by the editor: an operator with nothing after it is an error.)
    await page.keyboard.type('\ntotal = 1 +\n');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText(/Syntax error on line \d+, column \d+/)).toBeVisible();
    await expect(page.getByText('Error updating item')).toBeVisible();
    // The toast and the field error it is about are both readable (issue 12: toasts covered the errors).
    await expectToastClearOf(toast(page, 'Error updating item'), page.getByText(/Syntax error on line \d+, column \d+/));
    await page.screenshot({ path: test.info().outputPath(`functions-toast-and-error-${width}.png`) });
    await shot(page, 'functions-syntax-error');
    await page.getByRole('button', { name: 'Close' }).click();

    // A moderator approves them in the admin console.
    const adminContext = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
    const admin = await adminContext.newPage();
    const { email, password } = adminAccount();
    await signIn(admin, email, password);
    await expect(admin).toHaveURL(/\/react\/onlineusers$/);
    await admin.goto('/react/functionsreview');
    // (With its code drawn: the editor loads after the card.)
    await expect(admin.getByRole('listitem', { name: 'Function split_bill' }).filter({ hasText: user.email }).getByRole('textbox', { name: 'Code of split_bill' })).toBeVisible();
    // Every status tab can be reached on a phone: 'All' is inside the window, or the strip scrolls to it (issue 12: clipped).
    const all = admin.getByRole('tab', { name: 'All' });
    await expect(all).toBeVisible();
    const reach = await all.evaluate((tab) => {
      // The strip's visible part: its scroller (MUI Tabs clips it) within the window.
      const scroller = tab.closest('.MuiTabs-scroller') as HTMLElement;
      const clip = scroller.getBoundingClientRect();
      const shown = (r: DOMRect) => r.left >= Math.max(0, clip.left) - 0.5 && r.right <= Math.min(window.innerWidth, clip.right) + 0.5;
      const before = shown(tab.getBoundingClientRect());
      // Otherwise a person must be able to scroll the strip to it (a strip that clips without scrolling hides it).
      const overflowX = getComputedStyle(scroller).overflowX;
      const isScrollable = (overflowX === 'auto' || overflowX === 'scroll') && scroller.scrollWidth > scroller.clientWidth;
      if (isScrollable) scroller.scrollLeft = scroller.scrollWidth;
      return { before, isScrollable, after: shown(tab.getBoundingClientRect()) };
    });
    expect(reach.before || (reach.isScrollable && reach.after), `the All tab: ${JSON.stringify(reach)}`).toBe(true);
    // Nor does the page scroll sideways: each card's code scrolls inside its editor.
    expect(await admin.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 'the page does not scroll sideways').toBeLessThanOrEqual(0);
    for (const template of TEMPLATES) {
      const item = admin.getByRole('listitem', { name: `Function ${template.name}` }).filter({ hasText: user.email });
      await expect(item).toBeVisible();
      if (template.name === 'split_bill') await shot(admin, 'functions-review');
      await item.getByRole('button', { name: 'Approve' }).click();
      // Approving asks first, then says what happened once the card has left the Pending list.
      await admin.getByRole('dialog', { name: `Approve ${template.name}` }).getByRole('button', { name: 'Approve' }).click();
      await expect(item).toHaveCount(0);
      await expect(admin.getByRole('status').filter({ hasText: `${template.name} has been approved` })).toBeVisible();
    }
    await adminContext.close();

    await page.reload();
    for (const template of TEMPLATES) {
      await expect(card(page, template.name).getByText('Approved')).toBeVisible();
    }
    await shot(page, 'functions-approved');

    // Delete warns about linked avatars.
    await card(page, 'my_function').getByRole('button', { name: 'Delete my_function' }).click();
    await expect(page.getByRole('dialog')).toContainText('will also be removed from every avatar it is linked to');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('The function has been deleted successfully!')).toBeVisible();
    await expect(card(page, 'my_function')).toHaveCount(0);
  });
}
