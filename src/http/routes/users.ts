// Users: the caller's own record, the directory, one user by id or email, creating users,
// changing a user's name or role, creating bots.
import type { AuthedContext, Router } from '../router.js';
import { decodedPathPart, pathInt } from '../router.js';
import { check } from '../../lib/params.js';
import { userAtAddress } from '../../queries/user_lookup.js';
import { NoSuchUser, NotAllowed } from '../../errors.js';
import { formatUser, userForClient, usersByAddress } from '../../shapes/users.js';
import { createBot, createUserByApi, updateUserByAdmin, usersVisibleTo } from '../../actions/users.js';
import { requireMemberOrAdmin, requireRealmAdmin } from '../../access/roles.js';
import { BOT_TYPE, ROLE_VALUES, type User } from '../../store/users.js';
import { muteUser, unmuteUser } from '../../actions/muting.js';
import { addAlertWords, removeAlertWords, setUserTopic } from '../../actions/alert_words.js';
import { alertWordsOf } from '../../store/alert_words.js';
import { deactivateUser, reactivateUser, type DeactivationActions } from '../../actions/deactivation.js';
import { BadRequest } from '../../errors.js';
import { prepareProfileData, realmProfileData } from '../../actions/profile_fields.js';
import { profileDataList } from './profile_fields.js';
import { webhookUrlParam } from './bots.js';

const ACTION_KEYS = ['delete_profile', 'delete_public_channel_messages', 'delete_private_channel_messages', 'delete_direct_messages'] as const;

function parseActions(v: unknown, name: string): DeactivationActions {
  const o = check.object(v, name);
  const out: DeactivationActions = {};
  for (const [k, val] of Object.entries(o)) {
    if (!(ACTION_KEYS as readonly string[]).includes(k)) throw new BadRequest(`Invalid ${name}: unknown action ${k}`);
    out[k as (typeof ACTION_KEYS)[number]] = check.bool(val, `${name}["${k}"]`);
  }
  return out;
}


/**
 * The user a /users/{user_id} path names: a number is an id, anything else an address. A real
 * address finds only users whose address the caller may see, so a lookup reveals nothing.
 */
async function userNamedByPath(ctx: AuthedContext): Promise<User | undefined> {
  if (/^\d+$/.test(ctx.path.user_id ?? '')) return ctx.services.cache.user(ctx.realm.id, pathInt(ctx, 'user_id', () => new NoSuchUser()));
  return userAtAddress(ctx.services, ctx.user, decodedPathPart(ctx, 'user_id'));
}

export function registerUserRoutes(r: Router): void {
  r.get('/users/me', async ({ user, services }) => {
    // avatar_url is always a URL here: the schema of this endpoint does not allow null.
    const profileData = (await realmProfileData(services, user.realm_id)).get(user.id);
    // This endpoint's object has no bot fields; a bot reads its own through GET /users/{id}.
    // (Left out by destructuring: `delete` would turn the object into a slow dictionary.)
    const { bot_type: _botType, bot_owner_id: _botOwnerId, ...shaped } = formatUser(user, services.emailDomains, { clientGravatar: false, includeCustomProfileFields: true, profileData });
    const maxId = await services.cache.maxMessageId(user.id);
    return { ...shaped, profile_data: shaped.profile_data ?? {}, max_message_id: maxId > 0 ? maxId : -1 };
  });

  r.get('/users', async ({ params, services, realm, user }) => {
    const clientGravatar = params.bool('client_gravatar', true);
    const includeCustomProfileFields = params.bool('include_custom_profile_fields', false);
    const ids = params.optJson('user_ids', check.intList);
    // All users may be a moment stale (a user made elsewhere shows once the invalidation
    // arrives); ids asked for by name are read through.
    const users = ids ? await services.cache.usersIncluding(realm.id, ids) : await services.cache.users(realm.id);
    const visible = await usersVisibleTo(services, user, realm);
    const canSee = (u: User) => visible === null || visible.has(u.id);
    let chosen: User[];
    if (ids) {
      chosen = [...new Set(ids)].map((id) => users.get(id)).filter((u): u is User => u !== undefined && canSee(u));
      if (chosen.length !== new Set(ids).size) throw new NoSuchUser();
    } else {
      chosen = [...users.values()].filter(canSee);
    }
    const profiles = includeCustomProfileFields ? await realmProfileData(services, realm.id) : undefined;
    return { members: chosen.map((u) => userForClient(u, user, services.emailDomains, { clientGravatar, includeCustomProfileFields, profileData: profiles?.get(u.id) })) };
  });

  // One path for GET /users/{user_id} and GET /users/{email}: a number is an id, anything else an address.
  r.get('/users/{user_id}', async (ctx) => {
    const { params, services, realm, path, user } = ctx;
    const clientGravatar = params.bool('client_gravatar', true);
    const includeCustomProfileFields = params.bool('include_custom_profile_fields', false);
    let target = await userNamedByPath(ctx);
    if (!target) {
      // The system bots every organization shares are found too, as Zulip finds cross-realm bots.
      const bots = await services.cache.systemBots();
      const byAddress = /^\d+$/.test(path.user_id ?? '') ? undefined : usersByAddress(bots.values(), user, services.emailDomains).get(decodedPathPart(ctx, 'user_id').trim().toLowerCase());
      const bot = byAddress ?? bots.get(Number(path.user_id));
      if (bot?.is_active) return { user: userForClient(bot, user, services.emailDomains, { clientGravatar }) };
    }
    if (!target) throw new NoSuchUser();
    const visible = await usersVisibleTo(services, user, realm);
    if (visible !== null && !visible.has(target.id)) {
      // Zulip's access_user_by_id_including_cross_realm (check_can_access_user) says 'Insufficient
      // permission' for a user the caller may not see. By id that reveals nothing: every id is in
      // the caller's /register already, as an "Unknown user". An address may not be known to the
      // caller, so a hidden user looked up by one stays no such user.
      if (/^\d+$/.test(path.user_id ?? '')) throw new NotAllowed('Insufficient permission');
      throw new NoSuchUser();
    }
    const profileData = includeCustomProfileFields ? (await realmProfileData(services, realm.id)).get(target.id) : undefined;
    return { user: userForClient(target, user, services.emailDomains, { clientGravatar, includeCustomProfileFields, profileData }) };
  });

  r.post('/users', async ({ params, services, user, realm }) => {
    // Zulip checks the caller's role before reading any parameter.
    requireRealmAdmin(user);
    const email = params.str('email');
    const password = params.str('password');
    const fullName = params.str('full_name');
    return createUserByApi(services, user, realm, { email, password, fullName });
  });

  // PATCH /users/{user_id} and PATCH /users/{email} (feature level 313), as for GET.
  r.patch('/users/{user_id}', async (ctx) => {
    const { params, services, user, realm } = ctx;
    // Parameters first, as Zulip's update_user_backend: role is check_int_in(ROLE_TYPES), so an
    // unknown role is refused before the user is looked up or the caller's rights are checked.
    const fullName = params.optStr('full_name');
    const role = params.optInt('role');
    if (role !== undefined && !ROLE_VALUES.includes(role)) throw new BadRequest('Invalid role');
    const profileData = params.optJson('profile_data', profileDataList);
    const id = /^\d+$/.test(ctx.path.user_id ?? '') ? pathInt(ctx, 'user_id', () => new NoSuchUser()) : (await userNamedByPath(ctx))?.id;
    if (id === undefined) throw new NoSuchUser();
    // Another user's profile values: administrators only, written with the rest of the change.
    const alsoWrite = profileData
      ? (target: User) => {
          requireRealmAdmin(user);
          return prepareProfileData(services, user, realm, target, profileData, [], true);
        }
      : undefined;
    await updateUserByAdmin(services, user, realm, id, { fullName, role }, alsoWrite);
    return {};
  });

  r.post('/users/me/muted_users/{muted_user_id}', async (ctx) => {
    await muteUser(ctx.services, ctx.user, pathInt(ctx, 'muted_user_id', () => new NoSuchUser()));
    return {};
  });

  r.delete('/users/me/muted_users/{muted_user_id}', async (ctx) => {
    await unmuteUser(ctx.services, ctx.user, pathInt(ctx, 'muted_user_id', () => new NoSuchUser()));
    return {};
  });

  r.delete('/users/me', async ({ services, user, realm, params }) => {
    params.optStr('deactivation_notification_comment', { max: 2000 });
    await deactivateUser(services, user, realm, user.id, { actions: {}, self: true });
    return {};
  });

  r.delete('/users/{user_id}', async (ctx) => {
    const id = pathInt(ctx, 'user_id', () => new NoSuchUser());
    const actions = ctx.params.optJson('actions', parseActions) ?? {};
    ctx.params.optStr('deactivation_notification_comment', { max: 2000 });
    await deactivateUser(ctx.services, ctx.user, ctx.realm, id, { actions, self: false });
    return {};
  });

  r.post('/users/{user_id}/reactivate', async (ctx) => {
    await reactivateUser(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'user_id', () => new NoSuchUser()));
    return {};
  });

  r.get('/users/me/alert_words', async ({ services, user }) => ({ alert_words: await alertWordsOf(services.database.db, user.id) }));
  r.post('/users/me/alert_words', async ({ params, services, user }) => ({ alert_words: await addAlertWords(services, user, params.json('alert_words', check.strList)) }));
  r.delete('/users/me/alert_words', async ({ params, services, user }) => ({
    alert_words: await removeAlertWords(services, user, params.json('alert_words', check.strList)),
  }));

  r.post('/user_topics', async ({ params, services, user, realm }) => {
    await setUserTopic(services, user, realm, params.int('stream_id'), params.str('topic'), params.int('visibility_policy'));
    return {};
  });

  r.post('/bots', async ({ params, services, user, realm }) => {
    requireMemberOrAdmin(user);
    const fullName = params.str('full_name');
    const shortName = params.str('short_name');
    const botType = params.optInt('bot_type') ?? BOT_TYPE.generic;
    const payloadUrl = webhookUrlParam(params, 'payload_url');
    const interfaceType = params.optInt('interface_type');
    const serviceName = params.optStr('service_name');
    return createBot(services, user, realm, { fullName, shortName, botType, payloadUrl, interfaceType, serviceName });
  });
}
