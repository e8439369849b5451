import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

/** The desktop and phone widths every flow is shot at. */
export const WIDTHS = [1280, 390] as const;

export async function useWidth(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
}

/** A full-page screenshot into e2e/screenshots/{name}-{width}.png (gitignored) for a visual review. */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(dir, `${name}-${page.viewportSize()?.width ?? 0}.png`), fullPage: true });
}
