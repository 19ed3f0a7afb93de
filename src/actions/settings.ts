// PATCH /settings: a user's own settings, or (administrators) many users' at once.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { updateUser } from '../store/users.js';
import { deleteAllDrafts } from '../store/drafts.js';
import { groupMembersRecursive } from '../store/cache.js';
import { BadRequest, AdminRequired } from '../errors.js';
import { hashPassword, passwordStrongEnough, verifyPassword } from '../lib/secrets.js';
import { languageName, SELF_EDITED_KEY, userSettingsOf } from '../lib/user_settings.js';
import { publishAfterCommit } from '../events/publish.js';
import { apiEmail, canSeeDeliveryEmail, formatUser } from '../shapes/users.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { checkUniqueName, validateFullName } from './users.js';
import { checkEmailChange } from './email_change.js';
import { legacySettingEvents } from '../events/types.js';
import type { UserSettingsEvent } from '../events/types.js';

export interface TargetUsers {
  user_ids: number[];
  group_ids: number[];
  skip_if_already_edited: boolean;
}

export interface SettingsChange {
  settings: Record<string, unknown>;
  fullName?: string;
  oldPassword?: string;
  newPassword?: string;
  targetUsers?: TargetUsers;
  /** Whether the request named an email address (its change is started by the route). */
  emailGiven?: boolean;
  /** The address asked for, checked after the password (the route starts its change). */
  email?: string;
}


/**
 * Settings an administrator may not change for others (Zulip's
 * UserBaseSettings.SECURITY_SENSITIVE_USER_SETTINGS), refused with target_users as email,
 * new_password and timezone are.
 */
const SECURITY_SENSITIVE_USER_SETTINGS: ReadonlySet<string> = new Set([
  'allow_private_data_export',
  'email_address_visibility',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'presence_enabled',
  'send_private_typing_notifications',
  'send_read_receipts',
  'send_stream_typing_notifications',
]);

/**
 * The users target_users names, as Zulip's json_change_settings resolves them: every id must be
 * an account of the organization (user_ids_to_users: 'Invalid user ID: N'), deactivated ones
 * included (so the change holds if they come back); groups add their members, bots aside.
 */
async function resolveTargets(services: Services, realm: Realm, t: TargetUsers): Promise<User[]> {
  const users = await services.cache.usersIncluding(realm.id, t.user_ids);
  const graph = await services.cache.groupGraph(realm.id, t.group_ids);
  const ids = new Set<number>();
  for (const id of t.user_ids) {
    if (!users.get(id)) throw new BadRequest(`Invalid user ID: ${id}`);
    ids.add(id);
  }
  for (const gid of t.group_ids) {
    const g = graph.groups.get(gid);
    if (!g || !g.named || g.deactivated) throw new BadRequest(`Invalid user group ID: ${gid}`);
    for (const id of groupMembersRecursive(graph, gid)) {
      const u = users.get(id);
      if (u && !u.is_bot) ids.add(id);
    }
  }
  return [...ids].map((id) => users.get(id)!);
}

/** Applies the change; returns the new address whose change the caller starts, if any. */
export async function updateSettings(services: Services, caller: User, realm: Realm, change: SettingsChange): Promise<string | undefined> {
  const bulk = change.targetUsers !== undefined;
  if (bulk) {
    if (!isRealmAdmin(caller)) throw new AdminRequired();
    // Zulip refuses the address, the password and the time zone for others, and the settings that
    // guard a person's privacy; a name (or an old password) given along is not a setting there
    // and is left alone.
    if (change.emailGiven || change.newPassword !== undefined || change.settings.timezone !== undefined || Object.keys(change.settings).some((k) => SECURITY_SENSITIVE_USER_SETTINGS.has(k))) {
      throw new BadRequest('Cannot change this setting for other users.');
    }
  }
  const targets = change.targetUsers ? await resolveTargets(services, realm, change.targetUsers) : [caller];
  // As Zulip's json_change_settings, the password comes before the address and the name: a new
  // password is checked against the old one by authenticating with it, so a missing old_password is
  // the same 'Wrong password!' as a wrong one; an old_password without a new one changes nothing.
  let passwordHash: string | undefined;
  if (!bulk && change.newPassword !== undefined) {
    if (change.oldPassword === undefined || !(await verifyPassword(caller.password_hash, change.oldPassword))) throw new BadRequest('Wrong password!');
    if (!passwordStrongEnough(change.newPassword, services.config.passwordMinLength)) throw new BadRequest('New password is too weak!');
    passwordHash = await hashPassword(change.newPassword);
  }
  // Then the new address (validate_email_change_request), before the name.
  const newEmail = !bulk && change.email !== undefined ? await checkEmailChange(services, caller, realm, change.email) : undefined;
  // As Zulip's json_change_settings: a name equal to the current one is no change (and is not
  // checked); with name changes disabled, a member's new name is ignored without an error ("they
  // can't do it through the UI"); otherwise check_change_full_name, unique names included.
  let fullName: string | undefined;
  if (!bulk && change.fullName !== undefined && change.fullName !== caller.full_name && !(realm.settings.name_changes_disabled && !isRealmAdmin(caller))) {
    fullName = validateFullName(change.fullName);
    checkUniqueName(realm, (await services.cache.users(realm.id)).values(), fullName, caller.id);
  }
  const activeUsers = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active);
  const audience = activeUsers.map((u) => u.id);
  const admins = activeUsers.filter((u) => !u.is_bot && isRealmAdmin(u)).map((u) => u.id);

  await services.database.transaction(async (tx, onCommit) => {
    for (const target of targets) {
      const stored = { ...target.settings };
      const selfEdited = new Set((stored[SELF_EDITED_KEY] as string[] | undefined) ?? []);
      const current = userSettingsOf(stored);
      const changed: Array<[string, unknown]> = [];
      for (const [key, value] of Object.entries(change.settings)) {
        if (bulk && change.targetUsers!.skip_if_already_edited && selfEdited.has(key)) continue;
        if (!bulk) selfEdited.add(key);
        if (key === 'timezone') continue;
        if ((current as Record<string, unknown>)[key] === value) continue;
        stored[key] = value;
        changed.push([key, value]);
      }
      const timezone = change.settings.timezone as string | undefined;
      const timezoneChanged = timezone !== undefined && timezone !== target.timezone && !(bulk && change.targetUsers!.skip_if_already_edited && selfEdited.has('timezone'));
      if (selfEdited.size) stored[SELF_EDITED_KEY] = [...selfEdited];
      await updateUser(tx, target.id, {
        settings: stored,
        ...(timezoneChanged ? { timezone } : {}),
        ...(fullName !== undefined ? { full_name: fullName } : {}),
        ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
      });
      if (timezoneChanged) changed.push(['timezone', timezone]);
      if (changed.some(([k, v]) => k === 'enable_drafts_synchronization' && v === false)) await deleteAllDrafts(tx, target.id);
      const publishPerson = (userIds: number[], person: Record<string, unknown>) => {
        if (userIds.length) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds, event: { type: 'realm_user', op: 'update', person: { user_id: target.id, ...person } } });
      };
      // Zulip's json_change_settings: the name first, then each setting (do_change_user_setting, its
      // events together), the time zone last.
      if (fullName !== undefined && fullName !== target.full_name) publishPerson(audience, { full_name: fullName });
      for (const [property, value] of changed) {
        const event: UserSettingsEvent = { type: 'user_settings', op: 'update', property, value, ...(property === 'default_language' ? { language_name: languageName(String(value)) } : {}) };
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [target.id], event });
        // Clients without the user_settings_object capability get Zulip's older events too (the
        // queues drop them for clients that declare it).
        for (const legacy of legacySettingEvents(property, value, apiEmail(target, services.emailDomains))) {
          publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [target.id], event: legacy });
        }
        // Administrators see who lets them export private data (GET /export/realm/consents).
        if (property === 'allow_private_data_export') {
          publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: admins, event: { type: 'realm_export_consent', user_id: target.id, consented: !!value } });
        }
        if (property === 'timezone') publishPerson(audience, { email: apiEmail({ ...target, settings: stored } as User, services.emailDomains), timezone });
        if (property === 'email_address_visibility') {
          // send_delivery_email_update_events: one event to those who may now see the real address,
          // one (null) to those who no longer may; then, only when the API address changes (to or
          // from "everyone"), new_email to everyone and the avatar URL (notify_avatar_url_change).
          const after = { ...target, settings: stored } as User;
          const others = activeUsers.filter((v) => v.id !== target.id);
          publishPerson(others.filter((v) => !canSeeDeliveryEmail(v, target) && canSeeDeliveryEmail(v, after)).map((v) => v.id), { delivery_email: target.email });
          publishPerson(others.filter((v) => canSeeDeliveryEmail(v, target) && !canSeeDeliveryEmail(v, after)).map((v) => v.id), { delivery_email: null });
          if (apiEmail(after, services.emailDomains) !== apiEmail(target, services.emailDomains)) {
            publishPerson(audience, { new_email: apiEmail(after, services.emailDomains) });
            const url = formatUser(after, services.emailDomains, { clientGravatar: false }).avatar_url;
            publishPerson(audience, { avatar_source: 'G', avatar_url: url, avatar_url_medium: url, avatar_version: after.avatar_version });
          }
        }
      }
    }
    onCommit(() => services.cache.invalidateUsers(realm.id));
  });
  return newEmail;
}
