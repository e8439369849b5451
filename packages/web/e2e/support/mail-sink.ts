import fs from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

/** One received message, as stored by the sink for the tests to read. */
export interface StoredMail {
  to: string[];
  subject: string;
  /** Decoded bodies of every text part (plain and HTML). */
  text: string;
  receivedAt: number;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Splits a MIME message into its leaf parts and decodes their bodies (quoted-printable, base64). */
export function decodeMessage(raw: string): { subject: string; text: string } {
  const subject = /^Subject:\s*(.*)$/im.exec(raw)?.[1]?.trim() ?? '';
  const decodePart = (part: string): string => {
    const split = part.search(/\r?\n\r?\n/);
    const headers = split === -1 ? part : part.slice(0, split);
    const body = split === -1 ? '' : part.slice(split).trimStart();
    const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
    if (/^Content-Type:\s*multipart\//im.test(headers) && boundary) {
      return body
        .split(`--${boundary}`)
        .filter((piece) => piece.trim() && !piece.startsWith('--'))
        .map((piece) => decodePart(piece.replace(/^\r?\n/, '')))
        .join('\n');
    }
    const encoding = /^Content-Transfer-Encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
    if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
    if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    return body;
  };
  return { subject, text: decodePart(raw) };
}

/** An SMTP server on 127.0.0.1 that writes every message it receives as JSON into `dir`. */
export async function startMailSink(dir: string): Promise<{ port: number; close: () => Promise<void> }> {
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { subject, text } = decodeMessage(Buffer.concat(chunks).toString('utf8'));
        const mail: StoredMail = {
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          subject,
          text,
          receivedAt: Date.now(),
        };
        const file = path.join(dir, `${Date.now()}-${++count}.json`);
        fs.writeFileSync(`${file}.tmp`, JSON.stringify(mail));
        fs.renameSync(`${file}.tmp`, file);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('the mail sink has no port');
  return { port: address.port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
