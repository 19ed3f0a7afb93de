// The frame every email Confab writes shares: a plain-text part and an HTML part built from the
// same pieces, so each kind of mail (invitation, email change, password reset, login, missed
// messages, digest) only supplies its content.
import { escapeHtml } from './html.js';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** A piece of an email: a paragraph, a link (a button in HTML), or raw HTML with its text twin. */
export type Block =
  | { p: string }
  | { link: string; label: string }
  | { html: string; text: string };

/** Builds both parts from blocks; `footer` is a last, smaller paragraph. */
export function composeEmail(subject: string, blocks: Block[], footer?: string): EmailContent {
  const text: string[] = [];
  const html: string[] = [];
  for (const b of blocks) {
    if ('p' in b) {
      text.push(b.p);
      html.push(`<p>${escapeHtml(b.p).replace(/\n/g, '<br>')}</p>`);
    } else if ('link' in b) {
      text.push(`${b.label}:\n${b.link}`);
      html.push(`<p><a href="${escapeHtml(b.link)}" style="display:inline-block;padding:8px 16px;background:#6492fe;color:#fff;border-radius:4px;text-decoration:none">${escapeHtml(b.label)}</a></p>`);
    } else {
      text.push(b.text);
      html.push(b.html);
    }
  }
  if (footer) {
    text.push(`--\n${footer}`);
    html.push(`<p style="color:#777;font-size:12px">${escapeHtml(footer)}</p>`);
  }
  return {
    subject,
    text: text.join('\n\n') + '\n',
    html:
      `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
      `<body style="font-family:sans-serif;font-size:14px;line-height:1.4;color:#222">${html.join('\n')}</body></html>`,
  };
}
