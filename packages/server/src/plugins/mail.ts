import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { mailOutbox } from '../db/schema/index.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

const LINK = /https?:\/\/[^\s<>"']+/g;

/**
 * Mail over SMTP when SMTP_URL is set; otherwise an outbox table plus a log line with the
 * links, so a newcomer can verify and reset without a mail server.
 */
export async function createMailer(opts: {
  smtpUrl: string | undefined;
  from: string;
  db: Db;
  log: FastifyBaseLogger;
}): Promise<Mailer> {
  if (opts.smtpUrl) {
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      kind: 'smtp',
      async send(message) {
        await transport.sendMail({ from: opts.from, ...message });
        opts.log.info({ to: message.to, subject: message.subject }, 'mail sent');
      },
      async close() {
        transport.close();
      },
    };
  }
  return {
    kind: 'outbox',
    async send(message) {
      await opts.db.insert(mailOutbox).values(message);
      const links = message.text.match(LINK) ?? [];
      opts.log.info(
        { to: message.to, subject: message.subject, links },
        `mail kept in outbox (no SMTP_URL): ${message.subject} → ${message.to} ${links.join(' ')}`,
      );
    },
    async close() {},
  };
}

/** Minimal HTML escaping for values placed in mail bodies. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A simple, readable HTML mail with a button-like link. */
export function renderMailHtml(opts: { heading: string; paragraphs: string[]; action?: { label: string; url: string } }) {
  const body = opts.paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  const action = opts.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(opts.action.url)}" style="background:#4f46e5;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(opts.action.label)}</a></p><p style="margin:0 0 16px;font-size:13px;color:#555">If the button does not work, open this link: <br><a href="${escapeHtml(opts.action.url)}">${escapeHtml(opts.action.url)}</a></p>`
    : '';
  return `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#1f2937;max-width:560px;margin:0 auto;padding:24px"><h2 style="margin:0 0 16px">${escapeHtml(opts.heading)}</h2>${body}${action}<p style="font-size:12px;color:#888">Persona Studio</p></body></html>`;
}
