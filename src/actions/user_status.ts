// User status: a short text and an emoji a user shows beside their name. A request changes only
// what it names; `away` (deprecated) is the inverse of the presence_enabled setting. Changes go to
// everyone who may see the user in a user_status event.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { updateUser } from '../store/users.js';
import { storeUserStatus, userStatuses, userStatusOf, type ReactionType, type UserStatusRow } from '../store/emoji.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { apiEmail } from '../shapes/users.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { audienceFor } from './users.js';
import { checkEmoji, emojiByName } from './emoji.js';
import { legacySettingEvents } from '../events/types.js';
import type { UserStatusEvent } from '../events/types.js';

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusChange {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: ReactionType;
}

/** The API's form of a status: only the parts that are set. */
export function formatUserStatus(row: UserStatusRow | undefined, presenceEnabled: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!presenceEnabled) out.away = true;
  if (row?.status_text) out.status_text = row.status_text;
  if (row?.emoji_name) {
    out.emoji_name = row.emoji_name;
    out.emoji_code = row.emoji_code;
    out.reaction_type = row.reaction_type;
  }
  return out;
}

/** The user_status state of /register: every active user (visible to the viewer) with a status. */
export async function userStatusState(services: Services, realmId: number, visible: Set<number> | null): Promise<Record<string, unknown>> {
  const users = await services.cache.users(realmId);
  const rows = new Map((await userStatuses(services.database.db, realmId)).map((r) => [r.user_id, r]));
  const out: Record<string, unknown> = {};
  const consider = new Set<number>(rows.keys());
  for (const u of users.values()) if (!userSettingsOf(u.settings).presence_enabled) consider.add(u.id);
  for (const id of consider) {
    const u = users.get(id);
    if (!u?.is_active || (visible && !visible.has(id))) continue;
    const status = formatUserStatus(rows.get(id), userSettingsOf(u.settings).presence_enabled);
    if (Object.keys(status).length) out[String(id)] = status;
  }
  return out;
}

export async function statusOf(services: Services, target: User): Promise<Record<string, unknown>> {
  return formatUserStatus(await userStatusOf(services.database.db, target.id), userSettingsOf(target.settings).presence_enabled);
}

export async function updateUserStatus(services: Services, target: User, realm: Realm, change: StatusChange): Promise<void> {
  const statusText = change.statusText?.trim();
  if (change.away === undefined && statusText === undefined && change.emojiName === undefined) throw new BadRequest('Client did not pass any new values.');
  if (statusText !== undefined && [...statusText].length > MAX_STATUS_TEXT_LENGTH) {
    throw new BadRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  }
  let emoji: { emoji_name: string; emoji_code: string; reaction_type: ReactionType } | undefined;
  if (change.emojiName === '') {
    emoji = { emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' };
  } else if (change.emojiName !== undefined) {
    let code = change.emojiCode;
    let type = change.reactionType;
    if (code === undefined || type === undefined) {
      const found = await emojiByName(services.database.db, realm.id, change.emojiName);
      code ??= found.emoji_code;
      type ??= found.reaction_type;
    }
    emoji = { emoji_name: change.emojiName, emoji_code: code, reaction_type: type };
    await checkEmoji(services.database.db, realm.id, emoji);
  } else if (change.emojiCode !== undefined || change.reactionType !== undefined) {
    throw new BadRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  const audience = (await audienceFor(services, realm, target)).map((u) => u.id);
  const now = nowSeconds();

  await services.database.transaction(async (tx, onCommit) => {
    const current = await userStatusOf(tx, target.id);
    const next = {
      status_text: statusText ?? current?.status_text ?? '',
      emoji_name: emoji?.emoji_name ?? current?.emoji_name ?? '',
      emoji_code: emoji?.emoji_code ?? current?.emoji_code ?? '',
      reaction_type: emoji?.reaction_type ?? current?.reaction_type ?? 'unicode_emoji',
      timestamp: now,
    };
    await storeUserStatus(tx, realm.id, target.id, next);
    const event: UserStatusEvent = { type: 'user_status', user_id: target.id };
    if (change.away !== undefined) {
      event.away = change.away;
      const presenceEnabled = !change.away;
      if (userSettingsOf(target.settings).presence_enabled !== presenceEnabled) {
        await updateUser(tx, target.id, { settings: { ...target.settings, presence_enabled: presenceEnabled } });
        publishAfterCommit(services, onCommit, {
          realmId: realm.id,
          userIds: [target.id],
          event: { type: 'user_settings', op: 'update', property: 'presence_enabled', value: presenceEnabled },
        });
        for (const legacy of legacySettingEvents('presence_enabled', presenceEnabled, apiEmail(target, services.emailDomains))) {
          publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [target.id], event: legacy });
        }
        onCommit(() => services.cache.invalidateUsers(realm.id));
      }
    }
    if (statusText !== undefined) event.status_text = statusText;
    if (emoji) Object.assign(event, emoji);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event });
  });
}
