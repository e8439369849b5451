import fs from 'node:fs';
import path from 'node:path';
import type { StoredMail } from './mail-sink';

function mailDir(): string {
  const dir = process.env.E2E_MAIL_DIR;
  if (!dir) throw new Error('E2E_MAIL_DIR is not set: run the suite through playwright.config.ts');
  return dir;
}

function readMails(): StoredMail[] {
  return fs
    .readdirSync(mailDir())
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(fs.readFileSync(path.join(mailDir(), file), 'utf8')) as StoredMail);
}

/** Waits for the newest message to `to` received after `since` whose subject matches. */
export async function waitForMail(
  to: string,
  { subject, text, since = 0, timeoutMs = 15_000 }: { subject?: RegExp; /** a string the body contains */ text?: string; since?: number; timeoutMs?: number } = {},
): Promise<StoredMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = readMails()
      .filter((mail) => mail.receivedAt >= since && mail.to.includes(to.toLowerCase()) && (!subject || subject.test(mail.subject)) && (!text || mail.text.includes(text)))
      .at(-1);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${to}${subject ? ` matching ${subject}` : ''} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The first link in the mail to a portal path (e.g. '/react/reset-password/'), as a full URL. */
export function linkIn(mail: StoredMail, pathPrefix: string): string {
  const escaped = pathPrefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`https?://[^\\s"'<>]+${escaped}[A-Za-z0-9._~%-]+`).exec(mail.text);
  if (!match) throw new Error(`no ${pathPrefix} link in the mail "${mail.subject}":\n${mail.text}`);
  return match[0];
}
