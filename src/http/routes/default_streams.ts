// Default channels for new users: POST and DELETE /default_streams (administrators).
import type { Router } from '../router.js';
import { addDefaultStream, removeDefaultStream } from '../../actions/default_streams.js';
import { requireRealmAdmin } from '../../access/roles.js';

export function registerDefaultStreamRoutes(r: Router): void {
  r.post('/default_streams', async ({ params, services, user, realm }) => {
    // Zulip checks the role before reading any parameter.
    requireRealmAdmin(user);
    await addDefaultStream(services, user, realm, params.int('stream_id'));
    return {};
  });

  r.delete('/default_streams', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    await removeDefaultStream(services, user, realm, params.int('stream_id'));
    return {};
  });
}
