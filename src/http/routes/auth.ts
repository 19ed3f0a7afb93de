// POST /fetch_api_key: trade a login for an API key.
import type { Router } from '../router.js';
import { AuthenticationFailed, RealmDeactivated, UserDeactivated } from '../../errors.js';
import { verifyPassword } from '../../lib/secrets.js';
import type { Services } from '../../services.js';
import type { User } from '../../store/users.js';
import { notifyNewLogin } from '../../actions/login_email.js';
import { nowSeconds } from '../../services.js';

async function accountForHost(services: Services, candidates: User[], host: string): Promise<User | undefined> {
  const sub = host.split(':')[0]!.split('.')[0]!.toLowerCase();
  const realms = await Promise.all(candidates.map((u) => services.cache.realm(u.realm_id)));
  const index = realms.findIndex((r) => r && r.string_id !== '' && r.string_id === sub);
  if (index >= 0) return candidates[index];
  const root = realms.findIndex((r) => r?.string_id === '');
  return root >= 0 ? candidates[root] : undefined;
}

export function registerAuthRoutes(r: Router): void {
  r.publicRoute('POST', '/fetch_api_key', async ({ services, params, request }) => {
    const username = params.str('username');
    const password = params.str('password');
    // Password attempts are limited per username; over the limit even the right password is refused.
    const limiter = services.rateLimiter;
    const limitKey = `password:${username.toLowerCase()}`;
    if (limiter) await limiter.hit(limitKey, limiter.config.password);
    const candidates = (await services.cache.usersByEmail(username)).filter((u) => !u.is_bot);
    // One address may hold accounts in several organizations: the one at this host's subdomain
    // (or at the server's root) is meant.
    const user = candidates.length > 1 ? await accountForHost(services, candidates, request.headers.host ?? '') : candidates[0];
    // An unknown user costs a password check too, and gets the same answer as a wrong password.
    const ok = await verifyPassword(user?.password_hash ?? null, password);
    if (!user || !ok) throw new AuthenticationFailed();
    const realm = await services.cache.realm(user.realm_id);
    if (!realm || realm.deactivated) throw new RealmDeactivated();
    if (!user.is_active) throw new UserDeactivated();
    // A right password clears the count, as Zulip's rate_limit_auth does: the limit is meant for
    // guessing, and a person (or a test suite) logging in again and again is not guessing.
    if (limiter) await limiter.reset(limitKey);
    await notifyNewLogin(services, user, realm, String(request.headers['user-agent'] ?? ''), nowSeconds());
    return { api_key: user.api_key, email: user.email, user_id: user.id };
  });
}
