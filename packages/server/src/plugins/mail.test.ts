import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { mailOutbox } from '../db/schema/index.js';
import type { Database } from '../db/client.js';
import { openTestDatabase } from '../test/db.js';
import { createMailer, renderMailHtml } from './mail.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

describe('the outbox mailer (no SMTP_URL)', () => {
  it('keeps the mail in the outbox table and logs its links', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
    const mailer = await createMailer({ smtpUrl: undefined, from: 'x@y.z', db: database.db, log });
    expect(mailer.kind).toBe('outbox');
    await mailer.send({ to: 'a@b.co', subject: 'Hello', text: 'Open http://portal.test/react/reset-password/abc now', html: '<p>x</p>' });
    const rows = await database.db.select().from(mailOutbox);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ to: 'a@b.co', subject: 'Hello' });
    expect(lines.join('')).toContain('http://portal.test/react/reset-password/abc');
  });

  it('escapes values in HTML bodies', () => {
    const html = renderMailHtml({ heading: '<b>Hi</b>', paragraphs: ['a & b'], action: { label: 'Go', url: 'http://x/"y' } });
    expect(html).not.toContain('<b>Hi</b>');
    expect(html).toContain('&#38;');
    expect(html).toContain('&#34;');
  });
});
