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

  // The provider-specific endpoint older clients call.
  r.get('/calls/bigbluebutton/create', async ({ params, services }) => {
    const name = params.optStr('meeting_name') ?? 'Meeting';
    if (name.length > 200) throw new BadRequest('Meeting name too long');
    return { url: bigBlueButtonUrl(services, name, params.bool('voice_only', false)) };
  });
}
