// Disposable-address domains, as Zulip's is_disposable_domain (zerver/lib/name_restrictions.py)
// checks them against its `disposable_email_domains` blocklist. The list is the npm package
// `disposable-email-domains` (a JSON array of ~120,000 domains, 2.5 MB). A check reads the file's
// bytes and searches them for the quoted domain: about a millisecond on a sign-up, invitation or
// address change, and nothing kept in memory (parsed into a set, the list would hold ~10 MB for good).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Zulip's OVERRIDE_ALLOW_EMAIL_DOMAINS: on the blocklist, yet allowed. */
const OVERRIDE_ALLOW_EMAIL_DOMAINS: ReadonlySet<string> = new Set(['airsi.de', 'opayq.com', 'abinemail.com', 'blurmail.net', 'maskmemail.com']);

/** A domain as the list writes it: lower-case letters, digits, dots and hyphens (anything else is on no list). */
const LISTABLE = /^[a-z0-9.-]+$/;

// Where the installed list lives (resolved once; the file is read on each check).
let listPath: string | undefined;

/** Zulip's is_disposable_domain, on the installed blocklist. */
export function isDisposableDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  if (OVERRIDE_ALLOW_EMAIL_DOMAINS.has(d) || !LISTABLE.test(d)) return false;
  listPath ??= createRequire(import.meta.url).resolve('disposable-email-domains');
  // As bytes: no decoding, and Buffer.indexOf searches them natively.
  return readFileSync(listPath).indexOf(`"${d}"`) !== -1;
}
