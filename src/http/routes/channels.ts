// Channels and subscriptions: subscribe (creating channels), list subscriptions, list channels,
// one channel, a channel's id by name.
import type { AuthedContext, Router } from '../router.js';
import { pathInt } from '../router.js';
import { check, type Params } from '../../lib/params.js';
import { BadRequest, InvalidStreamId, NoSuchUser, NotAllowed } from '../../errors.js';
import { STREAM_GROUP_SETTINGS, activeUserSubscriberCounts, getStream, getStreamByName, isSubscribed, type StreamGroupSetting } from '../../store/channels.js';
import { parseGroupSettingUpdate, parseGroupSettingValue, type GroupSettingValue } from '../../access/group_settings.js';
import { codePointLength, MAX_CHANNEL_DESCRIPTION_LENGTH, subscribeToChannels, type ChannelOptions, type ChannelSpec } from '../../actions/channels.js';
import { channelAccess } from '../../access/channel_access.js';
import { unsubscribe } from '../../actions/unsubscribe.js';
import { usersVisibleTo } from '../../actions/users.js';
import { archiveChannel, updateChannel, type ChannelUpdate } from '../../actions/channel_update.js';

import { channelTopics } from '../../queries/topics.js';
import { markAllAsRead, markStreamAsRead, markTopicAsRead, updateSubscriptionProperties } from '../../actions/subscription_properties.js';
import { formatStream, listChannelsFor, subscriptionStateFor } from '../../shapes/channels.js';
import { usersByAddress } from '../../shapes/users.js';
import { userAtAddress } from '../../queries/user_lookup.js';
import type { User } from '../../store/users.js';

/** folder_id: a folder's id, or null for none. */
export function folderIdValue(v: unknown, name: string): number | null {
  if (v === null) return null;
  return check.int(v, name);
}

const TOPICS_POLICIES = new Set(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']);

/**
 * A string parameter Zulip declares as JSON (topics_policy, message_retention_days): clients send
 * it JSON-encoded ("\"unlimited\"") or bare (unlimited); numbers come back as their text.
 */
export function jsonOrBareString(params: Params, name: string): string | undefined {
  const raw = params.optStr(name);
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  } catch {
    /* not JSON: the bare value */
  }
  return raw;
}

export function topicsPolicyParam(params: Params): string | undefined {
  const policy = jsonOrBareString(params, 'topics_policy');
  if (policy !== undefined && !TOPICS_POLICIES.has(policy)) throw new BadRequest('Invalid topics_policy');
  return policy;
}

/** Zulip's check_color: '#' and three to six hex digits. */
const HEX_COLOR = /^#[0-9a-fA-F]{3,6}$/;

export function channelSpecs(v: unknown, name: string): ChannelSpec[] {
  const list = check.list(v, name);
  return list.map((item, i) => {
    const at = `${name}[${i}]`;
    const o = check.object(item, at);
    const spec: ChannelSpec = { name: check.str(o.name, `${at}["name"]`) };
    if (o.description !== undefined && o.description !== null) {
      const d = check.str(o.description, `${at}["description"]`);
      if (codePointLength(d) > MAX_CHANNEL_DESCRIPTION_LENGTH) {
        throw new BadRequest(`${at}["description"] is too long (limit: ${MAX_CHANNEL_DESCRIPTION_LENGTH} characters)`);
      }
      // Zulip keeps descriptions on one line.
      spec.description = d.replace(/\n/g, ' ');
    }
    if (o.color !== undefined && o.color !== null) {
      const c = check.str(o.color, `${at}["color"]`);
      if (!HEX_COLOR.test(c)) throw new BadRequest(`${at}["color"] is not a valid hex color code`);
      spec.color = c;
    }
    return spec;
  });
}

/**
 * principals: a list of user ids or one of emails (not mixed); every one an active user of the
 * organization. As Zulip's bulk_access_users_by_id / _by_email: any not found here (whichever
 * organization it belongs to) is "No such user"; then a deactivated one is "User is deactivated",
 * and one hidden from a guest "Insufficient permission".
 */
export async function resolvePrincipals(ctx: AuthedContext, raw: unknown): Promise<User[]> {
  return lookUpPrincipals(ctx, principalList(raw));
}

/** The shape check of principals (a parameter's type, checked before anything else). */
export function principalList(raw: unknown): number[] | string[] {
  if (!Array.isArray(raw)) throw new BadRequest('principals is not a list');
  const ints = raw.every((p) => typeof p === 'number' && Number.isSafeInteger(p));
  const strs = raw.every((p) => typeof p === 'string');
  if (!ints && !strs) throw new BadRequest('principals is not a list of user IDs or a list of emails');
  return raw as number[] | string[];
}

async function lookUpPrincipals(ctx: AuthedContext, raw: number[] | string[]): Promise<User[]> {
  const ints = raw.every((p) => typeof p === 'number');
  const users = ints ? await ctx.services.cache.usersIncluding(ctx.realm.id, raw as number[]) : await ctx.services.cache.users(ctx.realm.id);
  const byEmail = ints ? undefined : usersByAddress(users.values(), ctx.user, ctx.services.emailDomains);
  const out = new Map<number, User>();
  for (const p of raw as Array<number | string>) {
    // An address the cached users lack is looked up in the database (a user made elsewhere).
    const user = typeof p === 'number' ? users.get(p) : await userAtAddress(ctx.services, ctx.user, p, byEmail);
    if (!user) throw new NoSuchUser();
    out.set(user.id, user);
  }
  if ([...out.values()].some((u) => !u.is_active)) throw new BadRequest('User is deactivated');
  // access_user_common(for_admin=False) then asks check_can_access_user: a guest outside
  // can_access_all_users_group may name only those they share a conversation with (and bots).
  const visible = await usersVisibleTo(ctx.services, ctx.user, ctx.realm);
  if (visible && [...out.keys()].some((id) => !visible.has(id))) throw new NotAllowed('Insufficient permission');
  return [...out.values()];
}

/** message_retention_days: a positive number of days, "unlimited" (-1) or "realm_default" (null). */
export function retentionDays(v: string | undefined): number | null {
  if (v === undefined || v === 'realm_default') return null;
  if (v === 'unlimited' || v === 'forever') return -1;
  if (!/^\d+$/.test(v) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) throw new BadRequest(`Bad value for 'message_retention_days': ${v}`);
  return Number(v);
}

/** The settings of channels a request creates (POST /users/me/subscriptions, POST /channels/create). */
export function channelOptionParams(params: Params): ChannelOptions {
  const groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>> = {};
  for (const key of STREAM_GROUP_SETTINGS) {
    const value = params.optJson(key, parseGroupSettingValue);
    if (value !== undefined) groupSettings[key] = value;
  }
  return {
    inviteOnly: params.bool('invite_only', false),
    isWebPublic: params.bool('is_web_public', false),
    historyPublicToSubscribers: params.optBool('history_public_to_subscribers'),
    isDefaultStream: params.bool('is_default_stream', false),
    messageRetentionDays: retentionDays(jsonOrBareString(params, 'message_retention_days')),
    topicsPolicy: topicsPolicyParam(params),
    folderId: params.optJson('folder_id', folderIdValue) ?? null,
    groupSettings,
  };
}

export function registerChannelRoutes(r: Router): void {
  r.post('/users/me/subscriptions', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const channels = params.json('subscriptions', channelSpecs);
    const options = channelOptionParams(params);
    const raw = params.optJson('principals', principalList);
    return subscribeToChannels(services, user, realm, {
      channels,
      principals: undefined,
      namedPrincipals: raw && { raw, lookup: () => lookUpPrincipals(ctx, raw) },
      authorizationErrorsFatal: params.bool('authorization_errors_fatal', true),
      sendNewSubscriptionMessages: params.bool('send_new_subscription_messages', true),
      announce: params.bool('announce', false),
      options,
    });
  });

  r.delete('/users/me/subscriptions', async (ctx) => {
    const names = ctx.params.json('subscriptions', check.strList);
    const principalsRaw = ctx.params.optJson('principals', (v) => v);
    const principals = principalsRaw === undefined ? undefined : await resolvePrincipals(ctx, principalsRaw);
    // Zulip's remove_subscriptions_backend tests `if principals:`, so an empty list means oneself.
    return unsubscribe(ctx.services, ctx.user, ctx.realm, names, principals?.length ? principals : undefined);
  });

  r.post('/users/me/subscriptions/properties', async ({ params, services, user }) => {
    const changes = params.json('subscription_data', (v, name) =>
      check.list(v, name).map((item, i) => {
        const o = check.object(item, `${name}[${i}]`);
        return { stream_id: check.int(o.stream_id, `${name}[${i}]["stream_id"]`), property: check.str(o.property, `${name}[${i}]["property"]`), value: o.value };
      }),
    );
    await updateSubscriptionProperties(services, user, changes);
    return {};
  });

  r.post('/mark_all_as_read', async ({ services, user }) => {
    await markAllAsRead(services, user);
    return { complete: true };
  });

  r.post('/mark_stream_as_read', async ({ params, services, user, realm }) => {
    await markStreamAsRead(services, user, realm, params.int('stream_id'));
    return {};
  });

  r.post('/mark_topic_as_read', async ({ params, services, user, realm }) => {
    await markTopicAsRead(services, user, realm, params.int('stream_id'), params.str('topic_name'));
    return {};
  });

  r.get('/users/me/subscriptions', async ({ params, services, user }) => {
    const raw = params.optStr('include_subscribers');
    if (raw !== undefined && raw !== 'true' && raw !== 'false' && raw !== 'partial') throw new BadRequest('Invalid include_subscribers');
    const includeSubscribers = raw === 'partial' ? 'partial' : raw === 'true';
    const state = await subscriptionStateFor(services, user, { includeSubscribers });
    return { subscriptions: state.subscriptions };
  });

  r.get('/streams', async ({ params, services, user }) => {
    const streams = await listChannelsFor(services, user, {
      includePublic: params.bool('include_public', true),
      includeWebPublic: params.bool('include_web_public', false),
      includeSubscribed: params.bool('include_subscribed', true),
      excludeArchived: params.bool('exclude_archived', true),
      // include_all_active is the deprecated spelling of include_all.
      includeAll: params.bool('include_all', false) || params.bool('include_all_active', false),
      includeDefault: params.bool('include_default', false),
      includeOwnerSubscribed: params.bool('include_owner_subscribed', false),
      includeCanAccessContent: params.bool('include_can_access_content', false),
    });
    return { streams };
  });

  r.patch('/streams/{stream_id}', async (ctx) => {
    const { params } = ctx;
    const id = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const groupSettings: ChannelUpdate['groupSettings'] = {};
    for (const key of STREAM_GROUP_SETTINGS) {
      const update = params.optJson(key, parseGroupSettingUpdate);
      if (update) groupSettings[key] = update;
    }
    const topicsPolicy = topicsPolicyParam(params);
    const folderId = params.optJson('folder_id', folderIdValue);
    const retention = jsonOrBareString(params, 'message_retention_days');
    await updateChannel(ctx.services, ctx.user, ctx.realm, id, {
      // Zulip's update_stream_backend bounds it as a parameter, before the channel is looked up.
      description: params.optStr('description', { max: MAX_CHANNEL_DESCRIPTION_LENGTH }),
      newName: params.optStr('new_name'),
      isPrivate: params.optBool('is_private'),
      isWebPublic: params.optBool('is_web_public'),
      historyPublicToSubscribers: params.optBool('history_public_to_subscribers'),
      isDefaultStream: params.optBool('is_default_stream'),
      messageRetentionDays: retention === undefined ? undefined : retentionDays(retention),
      isArchived: params.optBool('is_archived'),
      topicsPolicy,
      folderId,
      groupSettings,
    });
    return {};
  });

  r.delete('/streams/{stream_id}', async (ctx) => {
    await archiveChannel(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'stream_id', () => new InvalidStreamId()));
    return {};
  });

  r.get('/streams/{stream_id}', async (ctx) => {
    const { services, user, realm } = ctx;
    const id = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const stream = await getStream(services.database.db, realm.id, id);
    const graph = await services.cache.groupGraph(realm.id);
    // A channel the caller may not see answers exactly like one that does not exist.
    if (!stream || !channelAccess(graph, user, stream, await isSubscribed(services.database.db, user.id, id)).metadata) throw new InvalidStreamId();
    const counts = await activeUserSubscriberCounts(services.database.db, [id]);
    return { stream: formatStream(stream, graph, counts.get(id) ?? 0) };
  });

  r.get('/users/me/{stream_id}/topics', async (ctx) => {
    // Zulip answers a malformed or unknown channel here with BAD_REQUEST.
    const id = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const allowEmpty = ctx.params.bool('allow_empty_topic_name', false);
    return { topics: await channelTopics(ctx.services, ctx.user, id, allowEmpty) };
  });

  r.get('/get_stream_id', async ({ params, services, user, realm }) => {
    const name = params.str('stream');
    const invalid = new BadRequest(`Invalid channel name '${name}'`);
    const stream = await getStreamByName(services.database.db, realm.id, name.trim());
    if (!stream) throw invalid;
    const graph = await services.cache.groupGraph(realm.id);
    if (!channelAccess(graph, user, stream, await isSubscribed(services.database.db, user.id, stream.id)).metadata) throw invalid;
    return { stream_id: stream.id };
  });
}
