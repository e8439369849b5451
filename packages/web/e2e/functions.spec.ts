import { expect, test, type Page } from '@playwright/test';
import { adminAccount, createVerifiedAccount } from './support/accounts';
import { signIn } from './support/pages';
import { shot, useWidth, WIDTHS } from './support/screenshots';

const TEMPLATES = [
  { title: 'Empty function canvas', name: 'my_function' },
  { title: 'Example template', name: 'split_bill' },
  { title: 'Weather', name: 'get_weather' },
  { title: 'SSML', name: 'speak_with_emphasis' },
];

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
    await shot(page, 'functions-syntax-error');
    await page.getByRole('button', { name: 'Close' }).click();

    // A moderator approves them in the admin console.
    const adminContext = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
    const admin = await adminContext.newPage();
    const { email, password } = adminAccount();
    await signIn(admin, email, password);
    await expect(admin).toHaveURL(/\/react\/onlineusers$/);
    await admin.goto('/react/functionsreview');
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
