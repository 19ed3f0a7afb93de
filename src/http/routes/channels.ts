// Channels and subscriptions: subscribe (creating channels), list subscriptions, list channels,
// one channel, a channel's id by name.
import type { AuthedContext, Router } from '../router.js';
import { pathInt } from '../router.js';
import { check } from '../params.js';
import { BadRequest, InvalidStreamId } from '../../errors.js';
import { STREAM_GROUP_SETTINGS, defaultStreamIds, getStream, getStreamByName, subscriberCounts, subscriberIdsByStream, subscriptionsOf, type StreamGroupSetting } from '../../store/channels.js';
import { parseGroupSettingUpdate, parseGroupSettingValue, type GroupSettingValue } from '../../actions/group_settings.js';
import { subscribeToChannels, subscriptionStateFor, visibleChannels, type ChannelOptions } from '../../actions/channels.js';
import { channelAccess, isRealmAdmin } from '../../actions/channel_access.js';
import { unsubscribe } from '../../actions/unsubscribe.js';
import { archiveChannel, updateChannel, type ChannelUpdate } from '../../actions/channel_update.js';

import { channelTopics } from '../../queries/topics.js';
import { markAllAsRead, markStreamAsRead, markTopicAsRead, updateSubscriptionProperties } from '../../actions/subscription_properties.js';
import { formatStream } from '../shapes/channels.js';
import type { User } from '../../store/users.js';

/** folder_id: a folder's id, or null for none. */
function folderIdValue(v: unknown, name: string): number | null {
  if (v === null) return null;
  return check.int(v, name);
}

const TOPICS_POLICIES = new Set(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']);

function channelSpecs(v: unknown, name: string): Array<{ name: string; description?: string }> {
  const list = check.list(v, name);
  return list.map((item, i) => {
    const o = check.object(item, `${name}[${i}]`);
    const n = check.str(o.name, `${name}[${i}]["name"]`);
    const d = o.description === undefined ? undefined : check.str(o.description, `${name}[${i}]["description"]`);
    return d === undefined ? { name: n } : { name: n, description: d };
  });
}

/** principals: user ids or emails; every one must be an active user of the organization. */
async function resolvePrincipals(ctx: AuthedContext, raw: unknown): Promise<User[]> {
  if (!Array.isArray(raw)) throw new BadRequest('principals is not a list');
  const users = await ctx.services.cache.users(ctx.realm.id);
  const byEmail = new Map([...users.values()].map((u) => [u.email.toLowerCase(), u]));
  const out = new Map<number, User>();
  for (const p of raw) {
    let user: User | undefined;
    if (typeof p === 'number' && Number.isSafeInteger(p)) user = users.get(p);
    else if (typeof p === 'string') user = byEmail.get(p.toLowerCase());
    else throw new BadRequest('principals is not a list of user IDs or emails');
    if (!user || !user.is_active) throw new BadRequest(typeof p === 'number' ? `No such user` : `No such user`);
    out.set(user.id, user);
  }
  return [...out.values()];
}

function retentionDays(v: string | undefined): number | null {
  if (v === undefined || v === 'realm_default') return null;
  if (v === 'unlimited' || v === 'forever') return -1;
  if (!/^\d+$/.test(v) || Number(v) <= 0) throw new BadRequest('Bad value for \'message_retention_days\': ' + v);
  return Number(v);
}

export function registerChannelRoutes(r: Router): void {
  r.post('/users/me/subscriptions', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const channels = params.json('subscriptions', channelSpecs);
    const principalsRaw = params.optJson('principals', (v) => v);
    const principals = principalsRaw === undefined ? undefined : await resolvePrincipals(ctx, principalsRaw);
    const topicsPolicy = params.optStr('topics_policy') ?? 'inherit';
    if (!TOPICS_POLICIES.has(topicsPolicy)) throw new BadRequest('Invalid topics_policy');
    const folderId = params.optJson('folder_id', folderIdValue) ?? null;
    const groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>> = {};
    for (const key of STREAM_GROUP_SETTINGS) {
      const value = params.optJson(key, parseGroupSettingValue);
      if (value !== undefined) groupSettings[key] = value;
    }
    const options: ChannelOptions = {
      inviteOnly: params.bool('invite_only', false),
      isWebPublic: params.bool('is_web_public', false),
      historyPublicToSubscribers: params.optBool('history_public_to_subscribers'),
      isDefaultStream: params.bool('is_default_stream', false),
      messageRetentionDays: retentionDays(params.optStr('message_retention_days')),
      topicsPolicy,
      folderId,
      groupSettings,
    };
    params.optBool('announce');
    params.optBool('send_new_subscription_messages');
    return subscribeToChannels(services, user, realm, {
      channels,
      principals,
      authorizationErrorsFatal: params.bool('authorization_errors_fatal', true),
      options,
    });
  });

  r.delete('/users/me/subscriptions', async (ctx) => {
    const names = ctx.params.json('subscriptions', check.strList);
    const principalsRaw = ctx.params.optJson('principals', (v) => v);
    const principals = principalsRaw === undefined ? undefined : await resolvePrincipals(ctx, principalsRaw);
    return unsubscribe(ctx.services, ctx.user, ctx.realm, names, principals);
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
    const includeSubscribers = params.bool('include_subscribers', false);
    const state = await subscriptionStateFor(services, user, { includeSubscribers });
    return { subscriptions: state.subscriptions };
  });

  r.get('/streams', async ({ params, services, user, realm }) => {
    const includePublic = params.bool('include_public', true);
    const includeWebPublic = params.bool('include_web_public', false);
    const includeSubscribed = params.bool('include_subscribed', true);
    const excludeArchived = params.bool('exclude_archived', true);
    const includeAll = params.bool('include_all', false) || params.bool('include_all_active', false);
    const includeDefault = params.bool('include_default', false);
    const includeOwnerSubscribed = params.bool('include_owner_subscribed', false);
    const includeCanAccessContent = params.bool('include_can_access_content', false);
    if (includeAll && !isRealmAdmin(user)) throw new BadRequest('User not authorized for this query');
    const visible = await visibleChannels(services, user);
    const defaults = new Set(await defaultStreamIds(services.database.db, realm.id));
    let ownerSubscribed = new Set<number>();
    if (includeOwnerSubscribed && user.is_bot && user.bot_owner_id !== null) {
      ownerSubscribed = new Set([...(await subscriptionsOf(services.database.db, user.bot_owner_id)).values()].filter((s) => s.active).map((s) => s.stream_id));
    }
    const chosen = visible.filter(({ stream, subscribed, contentAccess }) => {
      if (excludeArchived && stream.is_archived) return false;
      if (includeAll) return true;
      if (includeSubscribed && subscribed) return true;
      if (includePublic && !stream.invite_only && user.role !== 600) return true;
      if (includeWebPublic && stream.is_web_public) return true;
      if (includeDefault && defaults.has(stream.id)) return true;
      if (includeOwnerSubscribed && ownerSubscribed.has(stream.id)) return true;
      if (includeCanAccessContent && contentAccess) return true;
      return false;
    });
    const counts = await subscriberCounts(services.database.db, chosen.map((c) => c.stream.id));
    const graph = await services.cache.groupGraph(realm.id);
    return {
      streams: chosen.map(({ stream }) => ({ ...formatStream(stream, graph, counts.get(stream.id) ?? 0), is_default: defaults.has(stream.id) })),
    };
  });

  r.patch('/streams/{stream_id}', async (ctx) => {
    const { params } = ctx;
    const id = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const groupSettings: ChannelUpdate['groupSettings'] = {};
    for (const key of STREAM_GROUP_SETTINGS) {
      const update = params.optJson(key, parseGroupSettingUpdate);
      if (update) groupSettings[key] = update;
    }
    const topicsPolicy = params.optStr('topics_policy');
    if (topicsPolicy !== undefined && !TOPICS_POLICIES.has(topicsPolicy)) throw new BadRequest('Invalid topics_policy');
    const folderId = params.optJson('folder_id', folderIdValue);
    const retention = params.optStr('message_retention_days');
    await updateChannel(ctx.services, ctx.user, ctx.realm, id, {
      description: params.optStr('description'),
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
    if (!stream) throw new InvalidStreamId();
    const subscribers = (await subscriberIdsByStream(services.database.db, [id])).get(id) ?? [];
    const graph = await services.cache.groupGraph(realm.id);
    if (!channelAccess(graph, user, stream, subscribers.includes(user.id)).metadata) throw new InvalidStreamId();
    return { stream: formatStream(stream, graph, subscribers.length) };
  });

  r.get('/users/me/{stream_id}/topics', async (ctx) => {
    // Zulip answers a malformed or unknown channel here with BAD_REQUEST.
    const id = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const allowEmpty = ctx.params.bool('allow_empty_topic_name', false);
    return { topics: await channelTopics(ctx.services, ctx.user, id, allowEmpty) };
  });

  r.get('/get_stream_id', async ({ params, services, user, realm }) => {
    const name = params.str('stream');
    const stream = await getStreamByName(services.database.db, realm.id, name);
    const invalid = new BadRequest(`Invalid channel name '${name}'`);
    if (!stream) throw invalid;
    const subscribers = (await subscriberIdsByStream(services.database.db, [stream.id])).get(stream.id) ?? [];
    const graph = await services.cache.groupGraph(realm.id);
    if (!channelAccess(graph, user, stream, subscribers.includes(user.id)).metadata) throw invalid;
    return { stream_id: stream.id };
  });
}
