// PATCH /bots/{bot_id}: a bot's owner (or an administrator) renames it, changes its role, or
// points an outgoing-webhook bot at another endpoint or format.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import { BOT_TYPE, type User } from '../store/users.js';
import { BadRequest } from '../errors.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { publishAfterCommit } from '../events/publish.js';
import { apiEmail } from '../shapes/users.js';
import { servicesOf, updateService } from '../store/outgoing_webhooks.js';
import { checkInterfaceType, checkUniqueName, formatBot, formatService, updateUserByAdmin, validateFullName } from './users.js';
import { writeDeactivation } from './deactivation.js';

export interface BotChange {
  fullName?: string;
  role?: number;
  /** With serviceInterface (Zulip's default 1): the outgoing webhook's new URL and format. */
  servicePayloadUrl?: string;
  serviceInterface: number;
}

/** Zulip's access_bot_by_id: a bot of the caller's organization that the caller may administer. */
async function accessBot(services: Services, caller: User, realm: Realm, botId: number): Promise<User> {
  const bot = await services.cache.user(realm.id, botId);
  if (!bot || !bot.is_bot) throw new BadRequest('No such bot');
  if (!isRealmAdmin(caller) && bot.bot_owner_id !== caller.id) throw new BadRequest('Insufficient permission');
  return bot;
}

/**
 * DELETE /bots/{bot_id}: the bot's owner or an administrator deactivates it (a bot is not a user
 * to DELETE /users/{id}). Deactivating a bot that already is changes nothing, as in Zulip.
 */
export async function deactivateBot(services: Services, caller: User, realm: Realm, botId: number): Promise<void> {
  const bot = await accessBot(services, caller, realm, botId);
  if (!bot.is_active) return;
  const users = await services.cache.users(realm.id);
  const owner = (bot.bot_owner_id !== null ? users.get(bot.bot_owner_id) : undefined) ?? bot;
  await writeDeactivation(services, realm, users, owner, [bot], {});
}

export async function updateBot(services: Services, caller: User, realm: Realm, botId: number, change: BotChange) {
  const bot = await accessBot(services, caller, realm, botId);
  // Zulip's check_change_bot_full_name: the name is checked like any (check_full_name: a blank one
  // is too short), its current value is no change, and another active account's name is taken
  // (check_bot_name_available).
  let fullName: string | undefined;
  if (change.fullName !== undefined) {
    const name = validateFullName(change.fullName);
    const users = await services.cache.users(realm.id);
    checkUniqueName(realm, users.values(), name, bot.id);
    if (name !== bot.full_name) {
      if ([...users.values()].some((u) => u.is_active && u.full_name === name)) throw new BadRequest('Name is already in use.');
      fullName = name;
    }
  }
  if (fullName !== undefined || change.role !== undefined) {
    await updateUserByAdmin(services, caller, realm, bot.id, { fullName, role: change.role });
  }
  if (change.servicePayloadUrl !== undefined) {
    checkInterfaceType(change.serviceInterface);
    const current = (await servicesOf(services.database.db, [bot.id])).get(bot.id);
    if (bot.bot_type !== BOT_TYPE.outgoing_webhook || !current) throw new BadRequest('This bot has no outgoing webhook service.');
    const users = await services.cache.users(realm.id);
    const audience = [...new Set([...[...users.values()].filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.id), ...(bot.bot_owner_id ? [bot.bot_owner_id] : [])])];
    const next = { ...current, base_url: change.servicePayloadUrl, interface: change.serviceInterface };
    // do_update_bot_service: nothing written and no event when neither field changes.
    const unchanged = next.base_url === current.base_url && next.interface === current.interface;
    if (!unchanged) await services.database.transaction(async (tx, onCommit) => {
      await updateService(tx, bot.id, { base_url: next.base_url, interface: next.interface });
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: audience,
        event: { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, services: [formatService(next)] } },
      });
    });
  }
  const after = (await services.cache.users(realm.id)).get(bot.id) ?? bot;
  const owner = after.bot_owner_id !== null ? (await services.cache.users(realm.id)).get(after.bot_owner_id) : undefined;
  const shaped = formatBot(after, services.emailDomains);
  return {
    full_name: after.full_name,
    avatar_url: shaped.avatar_url,
    service_interface: change.serviceInterface,
    service_payload_url: change.servicePayloadUrl ?? null,
    config_data: null,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    ...(owner ? { bot_owner: apiEmail(owner, services.emailDomains) } : {}),
  };
}
