// Disposable-address domains, as Zulip's is_disposable_domain (zerver/lib/name_restrictions.py)
// checks them against the `disposable_email_domains` blocklist. The list comes from the npm package
// `disposable-email-domains` (a JSON array of domains) when it is installed; without it, a short
// list of the best-known services stands in, so the rule holds in every install.
import { createRequire } from 'node:module';

/** Used when the package is missing: a few of the blocklist's most common services. */
const FALLBACK_DOMAINS = [
  '10minutemail.com',
  'guerrillamail.com',
  'guerrillamailblock.com',
  'mailinator.com',
  'sharklasers.com',
  'temp-mail.org',
  'throwawaymail.com',
  'trashmail.com',
  'yopmail.com',
];

/** Zulip's OVERRIDE_ALLOW_EMAIL_DOMAINS: on the blocklist, yet allowed. */
const OVERRIDE_ALLOW_EMAIL_DOMAINS: ReadonlySet<string> = new Set(['airsi.de', 'opayq.com', 'abinemail.com', 'blurmail.net', 'maskmemail.com']);

/** A check over the given domain list, with Zulip's overrides; compares lower-cased domains. */
export function disposableDomainCheck(domains: Iterable<string>): (domain: string) => boolean {
  const blocked = new Set([...domains].map((d) => d.toLowerCase()));
  return (domain) => {
    const d = domain.toLowerCase();
    return !OVERRIDE_ALLOW_EMAIL_DOMAINS.has(d) && blocked.has(d);
  };
}

function loadBlocklist(): string[] {
  try {
    // Loaded at run time, not bundled: the package is an optional data file.
    const load = createRequire(import.meta.url);
    const list: unknown = load('disposable-email-domains');
    if (Array.isArray(list) && list.every((d) => typeof d === 'string')) return list as string[];
  } catch {
    // Not installed: the fallback list below.
  }
  return FALLBACK_DOMAINS;
}

// A memo of data that never changes while the process runs (no server's state).
let check: ((domain: string) => boolean) | undefined;

/** Zulip's is_disposable_domain, on the installed blocklist (read on first use). */
export function isDisposableDomain(domain: string): boolean {
  check ??= disposableDomainCheck(loadBlocklist());
  return check(domain);
}
