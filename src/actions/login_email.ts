// New-login emails (the enable_login_emails setting): a login with a password tells the account's
// owner when and from what device, so a login they did not make does not go unnoticed. As Zulip
// does, none for an account made in the last minute (its first login is expected).
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { composeEmail } from '../lib/email_templates.js';
import { realmUrl } from '../shapes/realm.js';
import { queueMails } from './email.js';

const JUST_CREATED_SECONDS = 60;

/** A readable client and system from a User-Agent, e.g. ["Firefox", "Linux"] or ["ZulipMobile", "Android"]. */
export function describeUserAgent(userAgent: string): { client: string; os: string } {
  const ua = userAgent || '';
  const known: Array<[RegExp, string]> = [
    [/ZulipMobile/i, 'Zulip mobile app'],
    [/ZulipElectron|ZulipDesktop/i, 'Zulip desktop app'],
    [/ZulipTerminal/i, 'Zulip terminal app'],
    [/Edg\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/Firefox\//, 'Firefox'],
    [/Chrome\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ];
  const client = known.find(([re]) => re.test(ua))?.[1] ?? (/^([A-Za-z][\w.-]*)/.exec(ua)?.[1] ?? 'an unknown client');
  const systems: Array<[RegExp, string]> = [
    [/Android/i, 'Android'],
    [/iPhone|iPad|iOS/i, 'iOS'],
    [/Windows/i, 'Windows'],
    [/Mac OS X|Macintosh|macOS|Darwin/i, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/i, 'Linux'],
  ];
  const os = systems.find(([re]) => re.test(ua))?.[1] ?? 'an unknown operating system';
  return { client, os };
}

/** Queues the notice for a password login, unless the person turned the emails off. */
export async function notifyNewLogin(services: Services, user: User, realm: Realm, userAgent: string, nowSeconds: number): Promise<void> {
  if (user.is_bot || !userSettingsOf(user.settings).enable_login_emails) return;
  if (user.date_joined > nowSeconds - JUST_CREATED_SECONDS) return;
  const { client, os } = describeUserAgent(userAgent);
  const when = new Date(nowSeconds * 1000).toUTCString();
  const url = realmUrl(realm, services.config.externalUrl);
  const mail = composeEmail(
    `New login from ${client} on ${os}`,
    [
      { p: `Hi ${user.full_name},` },
      { p: `Your account (${user.email}) in ${realm.name} (${url}) was logged in to on ${when}, from ${client} on ${os}.` },
      { p: 'If this was you, there is nothing to do. If it was not, change your password at once:' },
      { link: `${url}/accounts/password/reset/`, label: 'Reset your password' },
      { p: 'You can turn these emails off in your notification settings.' },
    ],
    `${realm.name} · ${url}`,
  );
  await services.database.transaction((tx, onCommit) => queueMails(services, tx, onCommit, [{ realmId: realm.id, kind: 'login', to: user.email, ...mail }]));
}
