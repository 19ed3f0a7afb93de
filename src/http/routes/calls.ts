// Video calls: a meeting URL from the organization's provider, as configured by the operator.
import { randomBytes } from 'node:crypto';
import type { Router } from '../router.js';
import type { Services } from '../../services.js';
import type { Realm } from '../../store/realms.js';
import { BadRequest } from '../../errors.js';
import { signedJoinPath } from '../../lib/bigbluebutton.js';

export const VIDEO_PROVIDERS = { disabled: 0, jitsi_meet: 1, big_blue_button: 4 } as const;

function jitsiUrl(services: Services, realm: Realm): string {
  const server = realm.settings.jitsi_server_url ?? services.config.jitsiServerUrl;
  if (!server) throw new BadRequest('Jitsi Meet is not configured on this server.');
  // A room name nobody can guess, as Zulip makes them.
  return `${server.replace(/\/+$/, '')}/${randomBytes(12).toString('hex')}#config.startWithVideoMuted=false`;
}

function bigBlueButtonUrl(services: Services, meetingName: string, voiceOnly: boolean): string {
  const bbb = services.config.bigBlueButton;
  if (!bbb) throw new BadRequest('BigBlueButton is not configured on this server.');
  return services.config.externalUrl + signedJoinPath(bbb, meetingName, voiceOnly);
}

export function registerCallRoutes(r: Router): void {
  r.post('/calls/videocall/create', async ({ services, realm }) => {
    switch (realm.settings.video_chat_provider) {
      case VIDEO_PROVIDERS.disabled:
        throw new BadRequest('Video calls are disabled in this organization.');
      case VIDEO_PROVIDERS.jitsi_meet:
        return { url: jitsiUrl(services, realm) };
      case VIDEO_PROVIDERS.big_blue_button:
        return { url: bigBlueButtonUrl(services, `${realm.name} meeting`, false) };
      default:
        throw new BadRequest('The configured video call provider is not available on this server.');
    }
  });

  // Nextcloud Talk: a public conversation created through the Talk API with the configured account.
  r.post('/calls/nextcloud_talk/create', async ({ params, services, realm }) => {
    const nc = services.config.nextcloud;
    if (!nc) throw new BadRequest('Nextcloud Talk is not configured on this server.');
    const roomName = (params.optStr('room_name') ?? `${realm.name} call`).slice(0, 200);
    let token: string | undefined;
    try {
      const res = await fetch(`${nc.url}/ocs/v2.php/apps/spreed/api/v4/room?format=json`, {
        method: 'POST',
        headers: {
          'OCS-APIRequest': 'true',
          Accept: 'application/json',
          'Content-Type': 'application/json',
          Authorization: 'Basic ' + Buffer.from(`${nc.user}:${nc.password}`).toString('base64'),
        },
        body: JSON.stringify({ roomType: 3, roomName }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json()) as { ocs?: { data?: { token?: unknown } } };
      const t = body.ocs?.data?.token;
      if (res.ok && typeof t === 'string' && /^[A-Za-z0-9]+$/.test(t)) token = t;
    } catch {
      token = undefined;
    }
    if (!token) throw new BadRequest('Could not create a Nextcloud Talk conversation.');
    return { url: `${nc.url}/index.php/call/${token}` };
  });

  // The provider-specific endpoint older clients call.
  r.get('/calls/bigbluebutton/create', async ({ params, services }) => {
    const name = params.optStr('meeting_name') ?? 'Meeting';
    if (name.length > 200) throw new BadRequest('Meeting name too long');
    return { url: bigBlueButtonUrl(services, name, params.bool('voice_only', false)) };
  });

  // Constructor Groups needs an account with the provider, which Confab has no settings for.
  r.post('/calls/constructorgroups/create', async () => {
    throw new BadRequest('Constructor Groups is not configured on this server.');
  });
}
