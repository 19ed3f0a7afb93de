// Outgoing mail: through SMTP when CONFAB_SMTP_URL is set, otherwise into an outbox folder of .eml
// files that an operator can read (nothing is lost on a server without a mail relay). Callers
// normally do not send directly: they queue mail in the email outbox (actions/email.ts), whose
// runner calls sendMail.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of the text (a multipart/alternative message). */
  html?: string | null;
}

/** RFC 2047 encoding for a header that may hold non-ASCII text. */
function header(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`;
}

function base64Lines(text: string): string {
  return (Buffer.from(text).toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}

type Transport = { sendMail(m: Record<string, unknown>): Promise<unknown>; close(): void };
// One pooled connection per SMTP URL, kept for the life of the process.
const transports = new Map<string, Promise<Transport>>();

async function transportFor(url: string): Promise<Transport> {
  let t = transports.get(url);
  if (!t) {
    t = import('nodemailer').then((m) => m.default.createTransport(url) as unknown as Transport);
    transports.set(url, t);
  }
  return t;
}

export async function sendMail(config: Config, mail: Mail): Promise<void> {
  if (config.smtpUrl) {
    const transport = await transportFor(config.smtpUrl);
    await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html ? { html: mail.html } : {}) });
    return;
  }
  mkdirSync(config.outboxDir, { recursive: true });
  const name = `${Date.now()}-${randomBytes(4).toString('hex')}.eml`;
  const head = `From: ${config.mailFrom}\r\nTo: ${mail.to}\r\nSubject: ${header(mail.subject)}\r\nDate: ${new Date().toUTCString()}\r\nMIME-Version: 1.0\r\n`;
  let body: string;
  if (mail.html) {
    const boundary = `confab-${randomBytes(8).toString('hex')}`;
    body =
      `${head}Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n` +
      `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${mail.text.replace(/\r?\n/g, '\r\n')}\r\n` +
      `--${boundary}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(mail.html)}\r\n` +
      `--${boundary}--\r\n`;
  } else {
    body = `${head}Content-Type: text/plain; charset=utf-8\r\n\r\n${mail.text.replace(/\r?\n/g, '\r\n')}\r\n`;
  }
  writeFileSync(join(config.outboxDir, name), body);
}
