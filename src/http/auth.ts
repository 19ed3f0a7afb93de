// HTTP Basic authentication with the account's email and API key.
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidApiKey, RealmDeactivated, Unauthorized, UserDeactivated } from '../errors.js';
import { constantTimeEqualBytes } from '../lib/secrets.js';
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

/**
 * Well-formed credentials by Authorization header, decoded once: every client repeats the same
 * header on each request (a long-poll a second each, at light load), and decoding is a good part
 * of what authenticating it costs. Only the decoding is remembered: the key is still compared
 * with the account's current one, and the account and organization checked, on every request.
 */
const decodedHeaders = new Map<string, { email: string; apiKey: Buffer }>();
const DECODED_HEADERS_MAX = 10_000;

function credentialsOf(header: string | undefined): { email: string; apiKey: Buffer } {
  if (!header) throw new Unauthorized();
  let creds = decodedHeaders.get(header);
  if (creds) return creds;
  const parsed = parseBasicAuth(header);
  if (!parsed) throw new Unauthorized('This endpoint requires HTTP basic authentication.');
  // Whitespace around either part is forgiven, as Zulip forgives it.
  const apiKey = parsed.apiKey.trim();
  if (!API_KEY_FORMAT.test(apiKey)) throw new Unauthorized('Malformed API key');
  creds = { email: parsed.email.trim(), apiKey: Buffer.from(apiKey) };
  if (decodedHeaders.size >= DECODED_HEADERS_MAX) decodedHeaders.clear();
  decodedHeaders.set(header, creds);
  return creds;
}

/** A cached user's API key as bytes, for the constant-time comparison (made once per key). */
const storedKeys = new WeakMap<User, { key: string; bytes: Buffer }>();
function storedKeyBytes(u: User): Buffer {
  let stored = storedKeys.get(u);
  if (stored?.key !== u.api_key) storedKeys.set(u, (stored = { key: u.api_key, bytes: Buffer.from(u.api_key) }));
  return stored.bytes;
}

export async function authenticate(services: Services, request: { headers: IncomingHttpHeaders }): Promise<{ user: User; realm: Realm }> {
  const { email, apiKey } = credentialsOf(request.headers.authorization);
  // Each lookup is awaited only when its cache is cold: on a warm cache a request authenticates
  // without a trip through the microtask queue per lookup.
  const cache = services.cache;
  const cached = cache.cachedUsersByEmail(email);
  let match = matchingKey(cached ?? (await cache.usersByEmail(email)), apiKey);
  // Cached accounts may lag another process's commit (an account made or a key changed there a
  // moment ago): the database decides before the key is refused.
  if (!match && cached) match = matchingKey(await cache.usersByEmail(email, { fresh: true }), apiKey);
  if (!match) throw new Unauthorized(new InvalidApiKey().message);
  const realm = cache.cachedRealm(match.realm_id) ?? (await cache.realm(match.realm_id));
  if (!realm) throw new Unauthorized(new InvalidApiKey().message);
  if (realm.deactivated) throw new Unauthorized(new RealmDeactivated().message);
  if (!match.is_active) throw new Unauthorized(new UserDeactivated().message);
  // A user the cached organization lacks (made elsewhere a moment ago) joins it here, so the
  // request's permission checks see them and their groups.
  const current = (cache.cachedUsers(realm.id) ?? (await cache.users(realm.id))).get(match.id) ?? (await cache.user(realm.id, match.id));
  return { user: current ?? match, realm };
}

/** The candidate whose key is this one; every candidate is compared so the time taken does not tell which matched. */
function matchingKey(candidates: readonly User[], apiKey: Buffer): User | undefined {
  let match: User | undefined;
  for (const u of candidates) if (constantTimeEqualBytes(storedKeyBytes(u), apiKey)) match = u;
  return match;
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
