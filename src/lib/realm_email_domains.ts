// The domain of each organization's placeholder addresses (Zulip's get_fake_email_domain), which
// user objects show for users who hide their address. One per server (Services.emailDomains),
// filled in when the server starts and as requests name their organization: user objects are
// shaped without the organization at hand.
export const FALLBACK_EMAIL_DOMAIN = 'localhost.localdomain';

export class RealmEmailDomains {
  private readonly byRealm = new Map<number, string>();

  /** Records the organization's domain; a later call with another one replaces it. */
  set(realmId: number, domain: string): void {
    if (this.byRealm.get(realmId) !== domain) this.byRealm.set(realmId, domain);
  }

  /** The organization's domain, or Zulip's fallback for one not recorded yet. */
  of(realmId: number): string {
    return this.byRealm.get(realmId) ?? FALLBACK_EMAIL_DOMAIN;
  }
}
