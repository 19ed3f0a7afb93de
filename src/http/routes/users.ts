// Users: the caller's own record, the directory, one user by id or email.
import type { Router } from '../router.js';
import { formatUser } from '../shapes/users.js';

export function registerUserRoutes(r: Router): void {
  r.get('/users/me', async ({ user, params }) => {
    const shaped = formatUser(user, { clientGravatar: params.bool('client_gravatar', true) });
    delete shaped.bot_type;
    delete shaped.bot_owner_id;
    return { ...shaped, profile_data: {} };
  });
}
