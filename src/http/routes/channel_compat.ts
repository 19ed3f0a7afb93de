// Channel and subscription endpoints that Zulip clients call besides the main ones: the legacy
// PATCH /users/me/subscriptions and muted_topics, subscription status, a user's channels, a
// channel's members and email address, POST /channels/create, and a bot's API key.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check } from '../../lib/params.js';
import { BadRequest, InvalidStreamId, NoSuchUser } from '../../errors.js';
import { codePointLength, MAX_CHANNEL_DESCRIPTION_LENGTH, type ChannelOptions } from '../../actions/channels.js';
import {
  botApiKey,
  channelEmailAddress,
  channelMembers,
  createChannel,
  legacyMuteTopic,
  subscribedChannelIds,
  subscriptionStatus,
  updateOwnSubscriptions,
} from '../../actions/channel_compat.js';
import { updateSubscriptionProperties } from '../../actions/subscription_properties.js';
import { channelOptionParams, channelSpecs, resolvePrincipals } from './channels.js';

/** The options of a channel made by a request that gives none (the legacy PATCH). */
const PLAIN_CHANNEL: ChannelOptions = {
  inviteOnly: false,
  isWebPublic: false,
  historyPublicToSubscribers: undefined,
  isDefaultStream: false,
  messageRetentionDays: null,
  topicsPolicy: undefined,
  folderId: null,
  groupSettings: {},
};

export function registerChannelCompatRoutes(r: Router): void {
  r.patch('/users/me/subscriptions', async ({ params, services, user, realm }) => {
    const add = params.optJson('add', channelSpecs) ?? [];
    const del = params.optJson('delete', check.strList) ?? [];
    if (!add.length && !del.length) throw new BadRequest('Nothing to do. Specify at least one of "add" or "delete".');
    return updateOwnSubscriptions(
      services,
      user,
      realm,
      // Zulip's add half runs with send_new_subscription_messages at its default, so the answer carries new_subscription_messages_sent.
      { channels: add, principals: undefined, authorizationErrorsFatal: true, sendNewSubscriptionMessages: true, options: PLAIN_CHANNEL },
      del,
    );
  });

  r.patch('/users/me/subscriptions/muted_topics', async ({ params, services, user, realm }) => {
    const streamId = params.optInt('stream_id');
    const streamName = params.optStr('stream');
    const topic = params.str('topic');
    const op = params.str('op');
    if (streamId === undefined && streamName === undefined) throw new BadRequest("Please supply 'stream'.");
    if (streamId !== undefined && streamName !== undefined) throw new BadRequest("Please choose one: 'stream' or 'stream_id'.");
    if (op !== 'add' && op !== 'remove') throw new BadRequest('Invalid op');
    await legacyMuteTopic(services, user, realm, streamId !== undefined ? { id: streamId } : { name: streamName! }, topic, op);
    return {};
  });

  // Zulip's update_subscriptions_property: one change of POST /users/me/subscriptions/properties,
  // with `value` read as a JSON boolean when it is one and as text otherwise ("#c2c2c2").
  r.patch('/users/me/subscriptions/{stream_id}', async (ctx) => {
    const streamId = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const property = ctx.params.str('property');
    const raw = ctx.params.str('value');
    const value = raw === 'true' ? true : raw === 'false' ? false : raw;
    await updateSubscriptionProperties(ctx.services, ctx.user, [{ stream_id: streamId, property, value }]);
    return {};
  });

  r.get('/users/{user_id}/subscriptions/{stream_id}', async (ctx) => {
    const userId = pathInt(ctx, 'user_id', () => new NoSuchUser());
    const streamId = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    return { is_subscribed: await subscriptionStatus(ctx.services, ctx.user, ctx.realm, userId, streamId) };
  });

  r.get('/users/{user_id}/channels', async (ctx) => {
    const userId = pathInt(ctx, 'user_id', () => new NoSuchUser());
    return { subscribed_channel_ids: await subscribedChannelIds(ctx.services, ctx.user, ctx.realm, userId) };
  });

  r.get('/streams/{stream_id}/members', async (ctx) => {
    const streamId = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    return { subscribers: await channelMembers(ctx.services, ctx.user, ctx.realm, streamId) };
  });

  r.get('/streams/{stream_id}/email_address', async (ctx) => {
    const streamId = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const senderId = ctx.params.optInt('sender_id');
    if (senderId !== undefined && senderId < 0) throw new BadRequest('sender_id is not a non-negative integer');
    return { email: await channelEmailAddress(ctx.services, ctx.user, ctx.realm, streamId, senderId) };
  });

  r.post('/channels/create', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const name = params.str('name');
    const subscriberIds = params.json('subscribers', check.intList);
    const description = params.optStr('description');
    if (description !== undefined && codePointLength(description) > MAX_CHANNEL_DESCRIPTION_LENGTH) {
      throw new BadRequest(`description is too long (limit: ${MAX_CHANNEL_DESCRIPTION_LENGTH} characters)`);
    }
    const principals = await resolvePrincipals(ctx, subscriberIds);
    const options = channelOptionParams(params);
    const spec = { name, ...(description !== undefined ? { description: description.replace(/\n/g, ' ') } : {}) };
    const id = await createChannel(services, user, realm, {
      channels: [spec],
      principals,
      exactPrincipals: true,
      authorizationErrorsFatal: true,
      // A created channel's subscribers get no direct message; Zulip announces the channel, and
      // posts its channel-created message, only when the request subscribes someone (it answers
      // early otherwise).
      sendNewSubscriptionMessages: false,
      announce: params.bool('announce', false) && principals.length > 0,
      channelCreatedMessages: principals.length > 0,
      options,
    });
    return { id };
  });

  r.get('/bots/{bot_id}/api_key', async (ctx) => {
    const botId = pathInt(ctx, 'bot_id', () => new BadRequest('No such bot'));
    return { api_key: await botApiKey(ctx.services, ctx.user, ctx.realm, botId) };
  });
}
