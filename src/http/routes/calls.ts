// Video calls: a meeting URL from the organization's provider, as configured by the operator.
import { randomBytes } from 'node:crypto';
import type { Router } from '../router.js';
import { BadRequest } from '../../errors.js';

const JITSI_MEET = 1;
const DISABLED = 0;

export function registerCallRoutes(r: Router): void {
  r.post('/calls/videocall/create', async ({ services, realm }) => {
    const provider = realm.settings.video_chat_provider;
    if (provider === DISABLED) throw new BadRequest('Video calls are disabled in this organization.');
    if (provider !== JITSI_MEET) throw new BadRequest('The configured video call provider is not available on this server.');
    const server = realm.settings.jitsi_server_url ?? services.config.jitsiServerUrl;
    if (!server) throw new BadRequest('Jitsi Meet is not configured on this server.');
    // A room name nobody can guess, as Zulip makes them.
    const room = randomBytes(12).toString('hex');
    return { url: `${server.replace(/\/+$/, '')}/${room}#config.startWithVideoMuted=false` };
  });
}
