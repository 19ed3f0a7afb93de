// PATCH /settings and its deprecated aliases /settings/display and /settings/notifications.
import type { Params } from '../../lib/params.js';
import type { AuthedContext, Router } from '../router.js';
import { check } from '../../lib/params.js';
import { BadRequest } from '../../errors.js';
import { USER_SETTING_SPECS } from '../../lib/user_settings.js';
import { updateSettings, type TargetUsers } from '../../actions/settings.js';
import { startEmailChange } from '../../actions/email_change.js';

function parseTargetUsers(v: unknown, name: string): TargetUsers {
  const o = check.object(v, name);
  for (const k of Object.keys(o)) if (!['user_ids', 'group_ids', 'skip_if_already_edited'].includes(k)) throw new BadRequest(`Invalid ${name}`);
  const out = {
    user_ids: o.user_ids === undefined ? [] : check.intList(o.user_ids, `${name}["user_ids"]`),
    group_ids: o.group_ids === undefined ? [] : check.intList(o.group_ids, `${name}["group_ids"]`),
    skip_if_already_edited: o.skip_if_already_edited === undefined ? false : check.bool(o.skip_if_already_edited, `${name}["skip_if_already_edited"]`),
  };
  if (out.user_ids.length === 0 && out.group_ids.length === 0) throw new BadRequest('Either user_ids or group_ids must be provided.');
  return out;
}

/**
 * The user settings a request sets, each checked against its spec (USER_SETTING_SPECS); names in
 * `skip` are left unread, so they come back as ignored parameters.
 */
export function readUserSettingParams(params: Params, skip: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(USER_SETTING_SPECS)) {
    if (skip.has(name)) continue;
    if (spec.kind === 'bool') {
      const v = params.optBool(name);
      if (v !== undefined) settings[name] = v;
    } else if (spec.kind === 'int') {
      const v = params.optInt(name);
      if (v === undefined) continue;
      const ok = spec.values ? spec.values.includes(v) : (spec.min === undefined || v >= spec.min) && (spec.max === undefined || v <= spec.max);
      if (!ok) throw new BadRequest(`Invalid ${name}`);
      settings[name] = v;
    } else {
      const v = params.optStr(name);
      if (v === undefined) continue;
      if ((spec.values && !spec.values.includes(v)) || (spec.check && !spec.check(v))) {
        throw new BadRequest(name === 'default_language' ? 'Invalid default_language' : name === 'timezone' ? 'Not a recognized time zone' : `Invalid ${name}`);
      }
      settings[name] = spec.normalize ? spec.normalize(v) : v;
    }
  }
  return settings;
}

async function patchSettings({ params, services, user, realm }: AuthedContext) {
  // Zulip's json_change_settings is @human_users_only: a bot is refused before any parameter is read.
  if (user.is_bot) throw new BadRequest('This endpoint does not accept bot requests.');
  const settings = readUserSettingParams(params);
  const rawEmail = params.optStr('email');
  const fullName = params.optStr('full_name');
  const oldPassword = params.optStr('old_password');
  const newPassword = params.optStr('new_password');
  const targetUsers = params.optJson('target_users', parseTargetUsers);
  // updateSettings checks the password, then the address (refused with target_users), then the name.
  const newEmail = await updateSettings(services, user, realm, { settings, fullName, oldPassword, newPassword, targetUsers, emailGiven: rawEmail !== undefined, email: rawEmail });
  // The address changes only when the link sent to it is followed.
  if (newEmail !== undefined) await startEmailChange(services, user, realm, newEmail);
  return {};
}

export function registerSettingsRoutes(r: Router): void {
  r.patch('/settings', patchSettings);
  r.patch('/settings/display', patchSettings);
  r.patch('/settings/notifications', patchSettings);
}
