import { expect, type Locator, type Page } from '@playwright/test';

type Box = { x: number; y: number; width: number; height: number };

/** Whether two boxes (viewport coordinates) share any area. */
export function boxesIntersect(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The toast (notistack's snackbar, app/toaster.tsx) showing this text. */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.persona-toasts .notistack-MuiContent').filter({ hasText: text });
}

/**
 * A toast and a form's field error on screen together: the toast does not cover the error
 * (issue 12: toasts sat on the field errors under them).
 */
export async function expectToastClearOf(toastBox: Locator, error: Locator): Promise<void> {
  await expect(toastBox).toBeVisible();
  await expect(error).toBeVisible();
  // Where the toast comes to rest (it slides in).
  const t = await settledBox(toastBox);
  const e = await error.boundingBox();
  expect(e, 'error box').not.toBeNull();
  const viewport = toastBox.page().viewportSize()!;
  expect(t.x >= 0 && t.x + t.width <= viewport.width, `the toast ${JSON.stringify(t)} is inside the window (${viewport.width} px)`).toBe(true);
  // The app's rule (app/toaster.tsx, theme.ts): toasts sit at the top, just below the top bar,
  // clear of it and of the forms below (not at the bottom, beside a form's Save and its errors).
  const bar = await toastBox.page().getByRole('banner').boundingBox();
  expect(t.y, `the toast ${JSON.stringify(t)} is below the top bar ${JSON.stringify(bar)}`).toBeGreaterThanOrEqual(bar!.y + bar!.height);
  expect(t.y, `the toast ${JSON.stringify(t)} is near the top of the window`).toBeLessThan(bar!.y + bar!.height + 40);
  expect(boxesIntersect(t, e!), `the toast ${JSON.stringify(t)} covers the field error ${JSON.stringify(e)}`).toBe(false);
}

/** An element's box once it has stopped moving (the same in two reads 100 ms apart). */
async function settledBox(target: Locator): Promise<Box> {
  let last = await target.boundingBox();
  for (let i = 0; i < 30; i++) {
    await target.page().waitForTimeout(100);
    const now = await target.boundingBox();
    if (now && last && JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error(`${target} did not stop moving: ${JSON.stringify(last)}`);
}

/** The indicator a focused element shows: outline or box-shadow ring, its width and its contrast with what is behind it. */
export interface FocusIndicator {
  kind: 'outline' | 'box-shadow' | 'none';
  widthPx: number;
  colour: string;
  background: string;
  contrast: number;
}

/**
 * Reads the focused element's focus ring from its computed style and measures the ring's colour
 * against the nearest opaque background behind the element (WCAG 2.4.7 / 1.4.11: 3:1).
 */
export async function focusIndicator(target: Locator): Promise<FocusIndicator> {
  return target.evaluate((el) => {
    const parse = (c: string): [number, number, number, number] | null => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return null;
      const parts = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
      return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
    };
    const luminance = ([r, g, b]: number[]) => {
      const lin = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
    };
    // The ring is drawn around the element, over its parent's background.
    let background = 'rgb(255, 255, 255)';
    for (let node = el.parentElement; node; node = node.parentElement) {
      const bg = getComputedStyle(node).backgroundColor;
      const rgba = parse(bg);
      if (rgba && rgba[3] > 0.9) {
        background = bg;
        break;
      }
    }
    const style = getComputedStyle(el);
    let kind: 'outline' | 'box-shadow' | 'none' = 'none';
    let widthPx = 0;
    let colour = '';
    if (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) {
      kind = 'outline';
      widthPx = parseFloat(style.outlineWidth);
      colour = style.outlineColor;
    } else if (style.boxShadow && style.boxShadow !== 'none') {
      // e.g. "rgb(79, 70, 229) 0px 0px 0px 3px": the spread is the ring's width.
      const m = /(rgba?\([^)]+\))\s+(-?[\d.]+)px\s+(-?[\d.]+)px\s+([\d.]+)px\s+([\d.]+)px/.exec(style.boxShadow);
      if (m) {
        kind = 'box-shadow';
        widthPx = parseFloat(m[5]!);
        colour = m[1]!;
      }
    }
    const fg = parse(colour);
    const bg = parse(background)!;
    const [l1, l2] = fg ? [luminance(fg), luminance(bg)].sort((a, b) => b - a) : [0, 0];
    const contrast = fg ? (l1! + 0.05) / (l2! + 0.05) : 0;
    return { kind, widthPx, colour, background, contrast };
  });
}

/** Presses Tab until `target` has the keyboard focus (at most `max` presses). */
export async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`Tab did not reach ${target} in ${max} presses`);
}
