// Outgoing mail: through SMTP when CONFAB_SMTP_URL is set, otherwise into an outbox folder of .eml
// files that an operator can read (nothing is lost on a server without a mail relay).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** RFC 2047 encoding for a header that may hold non-ASCII text. */
function header(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`;
}

export async function sendMail(config: Config, mail: Mail): Promise<void> {
  if (config.smtpUrl) {
    const nodemailer = (await import('nodemailer')).default;
    const transport = nodemailer.createTransport(config.smtpUrl);
    await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
    return;
  }
  mkdirSync(config.outboxDir, { recursive: true });
  const name = `${Date.now()}-${randomBytes(4).toString('hex')}.eml`;
  const body =
    `From: ${config.mailFrom}\r\nTo: ${mail.to}\r\nSubject: ${header(mail.subject)}\r\nDate: ${new Date().toUTCString()}\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${mail.text.replace(/\r?\n/g, '\r\n')}\r\n`;
  writeFileSync(join(config.outboxDir, name), body);
}
