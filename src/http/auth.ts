// HTTP Basic authentication with the account's email and API key.
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidApiKey, RealmDeactivated, Unauthorized, UserDeactivated } from '../errors.js';
import { constantTimeEqual } from '../lib/secrets.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import { getUserByApiKey, type User } from '../store/users.js';

export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } | undefined {
  if (!header) return undefined;
  const m = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.lastIndexOf(':');
  // A NUL can be in no stored email or key (and PostgreSQL cannot even compare it).
  if (colon < 0 || decoded.includes('\u0000')) return undefined;
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

// Zulip's REST authentication turns every credential failure into 401 UNAUTHORIZED carrying the
// specific reason as its message (a bad key, a deactivated account or organization); clients test
// for that code. The `?api_key=` path of uploads keeps the specific codes, as Zulip's does.
const API_KEY_FORMAT = /^[A-Za-z0-9]{32}$/;

export async function authenticate(services: Services, request: { headers: IncomingHttpHeaders }): Promise<{ user: User; realm: Realm }> {
  const header = request.headers.authorization;
  if (!header) throw new Unauthorized();
  const creds = parseBasicAuth(header);
  if (!creds) throw new Unauthorized('This endpoint requires HTTP basic authentication.');
  // Whitespace around either part is forgiven, as Zulip forgives it.
  const email = creds.email.trim();
  const apiKey = creds.apiKey.trim();
  if (!API_KEY_FORMAT.test(apiKey)) throw new Unauthorized('Malformed API key');
  const candidates = await services.cache.usersByEmail(email);
  // Compare against every candidate so the time taken does not tell which one matched.
  let match: User | undefined;
  for (const u of candidates) if (constantTimeEqual(u.api_key, apiKey)) match = u;
  if (!match) throw new Unauthorized(new InvalidApiKey().message);
  const realm = await services.cache.realm(match.realm_id);
  if (!realm) throw new Unauthorized(new InvalidApiKey().message);
  if (realm.deactivated) throw new Unauthorized(new RealmDeactivated().message);
  if (!match.is_active) throw new Unauthorized(new UserDeactivated().message);
  const current = await services.cache.user(realm.id, match.id);
  return { user: current ?? match, realm };
}

/**
 * An API key given outside the Authorization header (`?api_key=` on downloads and incoming
 * webhooks): as in Zulip, its failures keep their own codes (INVALID_API_KEY, deactivated).
 */
export async function authenticateApiKey(services: Services, apiKey: string): Promise<{ user: User; realm: Realm }> {
  if (!apiKey || apiKey.includes('\u0000')) throw new InvalidApiKey();
  const user = await getUserByApiKey(services.database.db, apiKey);
  if (!user) throw new InvalidApiKey();
  const realm = await services.cache.realm(user.realm_id);
  if (!realm) throw new InvalidApiKey();
  if (realm.deactivated) throw new RealmDeactivated();
  if (!user.is_active) throw new UserDeactivated();
  return { user: (await services.cache.user(realm.id, user.id)) ?? user, realm };
}
