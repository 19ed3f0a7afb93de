// POST /register: the initial state a client starts from, for the event types it asks for.
// Each section is one or a few batched queries; sections the client did not ask for cost nothing.
import type { Services } from '../services.js';
import { userStatusState } from './user_status.js';
import { realmEmojiState } from './realm_emoji.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { BOT_TYPE, ROLE } from '../store/users.js';
import { starredMessageIds } from '../store/unreads.js';
import { unreadSummary } from './unread_summary.js';
import { allSubscriptionsOf, defaultStreamIds, type Subscription } from '../store/channels.js';
import { listDrafts, listSnippets } from '../store/drafts.js';
import { listUserTopics, mutedTopicsOf, type UserTopic } from '../store/user_topics.js';
import { recentDmConversations } from '../store/messages.js';
import { mutedUsersOf } from '../store/muted_users.js';
import { formatUser, userForClient, userJsonForClient, apiEmail } from '../shapes/users.js';
import { RawJson } from '../lib/raw_json.js';
import { formatBot, usersVisibleTo } from './users.js';
import { servicesOf } from '../store/outgoing_webhooks.js';
import { botDomain, realmStateFields } from '../shapes/realm.js';
import { userGroupsForClient } from '../shapes/groups.js';
import { subscriptionStateFor, type SubscriptionState } from '../shapes/channels.js';
import { listScheduledMessages } from './scheduled.js';
import { listPendingReminders } from './reminders.js';
import { listNavigationViews } from './navigation_views.js';
import { listChannelFolders } from '../store/channel_folders.js';
import { listPlaygrounds } from './playgrounds.js';
import { listRealmDomains } from './realm_domains.js';
import { alertWordsOf } from '../store/alert_words.js';
import { linkifierForClient, listLinkifiers } from '../store/linkifiers.js';
import { legacyPresences, modernPresences, newestPresenceUpdateId, presenceRows } from './presence.js';
import { isUserInGroup } from '../store/cache.js';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS, userSettingsOf } from '../lib/user_settings.js';
import { realmUserDefaults } from './realm_user_defaults.js';
import { FIELD_TYPES_FOR_CLIENTS, formatProfileField, listProfileFields, realmProfileData } from './profile_fields.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { devicesState } from './devices.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { PASSWORD_MAX_LENGTH } from '../lib/secrets.js';
import { MAX_BULK_NEW_SUBSCRIPTION_MESSAGES } from './subscription_notices.js';

export const LIMITS = {
  max_message_length: 10000,
  max_topic_length: 60,
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
  max_reminder_note_length: 1000,
};

/** Every event type a client can ask for, in the order the state is assembled. */
export const STATE_EVENT_TYPES = [
  'alert_words', 'custom_profile_fields', 'default_stream_groups', 'default_streams', 'device', 'drafts',
  'message', 'muted_topics', 'muted_users', 'navigation_views', 'onboarding_steps', 'presence',
  'realm', 'realm_bot', 'realm_domains', 'realm_embedded_bots', 'realm_emoji', 'realm_filters',
  'realm_incoming_webhook_bots', 'realm_linkifiers', 'realm_playgrounds', 'realm_user', 'realm_user_groups',
  'realm_user_settings_defaults', 'recent_private_conversations', 'reminders', 'saved_snippets',
  'scheduled_messages', 'starred_messages', 'stop_words', 'stream', 'subscription', 'channel_folders',
  'update_message_flags', 'user_settings', 'user_status', 'user_topic', 'video_calls', 'giphy', 'tenor',
] as const;

export interface RegisterOptions {
  fetchEventTypes: Set<string>;
  clientGravatar: boolean;
  includeSubscribers: boolean | 'partial';
  applyMarkdown: boolean;
  /** Presence in the modern format (slim_presence, or the simplified_presence_events capability). */
  slimPresence: boolean;
  /** The user_list_incomplete capability: users the viewer may not see are left out, not "Unknown user". */
  userListIncomplete?: boolean;
  /** The linkifier_url_template capability: realm_linkifiers are sent (else an empty list). */
  linkifierUrlTemplate?: boolean;
  /** The empty_topic_name capability: the empty topic is sent as ''. */
  emptyTopicName?: boolean;
  /** Whether the client named the types it fetches (fetch_event_types or event_types). */
  fetchTypesNamed?: boolean;
  /** The user_settings_object capability: no legacy top-level settings fields. */
  userSettingsObject?: boolean;
  /** The notification_settings_null capability: null channel notification settings stay null. */
  notificationSettingsNull?: boolean;
  /** The archived_channels capability: archived channels are listed too. */
  archivedChannels?: boolean;
  /** The include_deactivated_groups capability: deactivated user groups are listed too. */
  includeDeactivatedGroups?: boolean;
}

/**
 * Zulip's placeholder for a user the viewer may not see, sent to clients without the
 * user_list_incomplete capability: only the id is real.
 */
function inaccessibleUser(userId: number, realm: Realm, externalUrl: string): Record<string, unknown> {
  return {
    email: `user${userId}@${botDomain(realm, externalUrl)}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: ROLE.member,
    is_bot: false,
    full_name: 'Unknown user',
    timezone: '',
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}

/** What every section of the initial state reads, and the state it fills in. */
interface StateContext {
  services: Services;
  user: User;
  realm: Realm;
  o: RegisterOptions;
  graph: Awaited<ReturnType<Services['cache']['groupGraph']>>;
  users: Map<number, User>;
  state: Record<string, unknown>;
  want: (eventType: string) => boolean;
  /** Who a restricted guest may see (null: everyone): read once, for the user lists and the statuses alike. */
  visibleToViewer: () => Promise<Set<number> | null>;
  /** Clients without empty_topic_name see the empty topic by its display name wherever topics appear. */
  topicName: (topic: string) => string;
  /** The viewer's subscription rows and topic settings: each read once, for the sections that need them. */
  mySubscriptions: () => Promise<Subscription[]>;
  userTopics: () => Promise<UserTopic[]>;
}

/** A promise awaited later: until then a rejection must not count as unhandled (the await still throws). */
function startEarly<T>(p: Promise<T> | undefined): Promise<T> | undefined {
  p?.catch(() => undefined);
  return p;
}

/** The state /register returns, one section per family of event types the client fetches (in Zulip's order). */
export async function initialState(services: Services, user: User, realm: Realm, o: RegisterOptions): Promise<Record<string, unknown>> {
  const graph = await services.cache.groupGraph(realm.id);
  const users = await services.cache.users(realm.id);
  let visibleUsers: Promise<Set<number> | null> | undefined;
  let mySubscriptions: Promise<Subscription[]> | undefined;
  let userTopics: Promise<UserTopic[]> | undefined;
  const context: StateContext = {
    services,
    user,
    realm,
    o,
    graph,
    users,
    state: {},
    want: (t) => o.fetchEventTypes.has(t),
    visibleToViewer: () => (visibleUsers ??= usersVisibleTo(services, user, realm)),
    topicName: (t) => (t === '' && !o.emptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : t),
    mySubscriptions: () => (mySubscriptions ??= allSubscriptionsOf(services.database.db, user.id)),
    userTopics: () => (userTopics ??= listUserTopics(services.database.db, user.id)),
  };
  // The two sections with the largest reads start first and are awaited in their turn (the state
  // keeps its order): on PostgreSQL their statements, the subscriber lists of every channel above
  // all, run on other pool connections while this process shapes the user list.
  const subscriptions = startEarly(subscriptionData(context));
  const unread = startEarly(unreadData(context));
  await personalState(context);
  await personalListsState(context);
  await statusAndTopicsState(context);
  realmState(context);
  await realmUserState(context);
  await botsGroupsAndDefaultsState(context);
  await subscriptionState(context, subscriptions);
  await unreadState(context, unread);
  userSettingsState(context);
  return context.state;
}

/** alert_words, custom_profile_fields, drafts, onboarding_steps, message, muted_topics, muted_users, presence. */
async function personalState(c: StateContext): Promise<void> {
  const { services, user, realm, o, users, state, want } = c;
  const { database, cache } = services;
  const db = database.db;
  if (want('alert_words')) state.alert_words = await alertWordsOf(db, user.id);
  if (want('custom_profile_fields')) {
    state.custom_profile_fields = (await listProfileFields(db, realm.id)).map(formatProfileField);
    state.custom_profile_field_types = FIELD_TYPES_FOR_CLIENTS;
  }
  // Zulip sends the most recently edited drafts first, at most 1000 (MAX_DRAFTS_IN_REGISTER_RESPONSE).
  if (want('drafts')) state.drafts = userSettingsOf(user.settings).enable_drafts_synchronization ? await listDrafts(db, user.id, { newestFirst: true, limit: 1000 }) : [];
  if (want('onboarding_steps')) {
    state.onboarding_steps = [];
    state.navigation_tour_video_url = null;
  }
  if (want('message')) {
    // Zulip reports -1 for a user with no messages yet.
    const maxId = await cache.maxMessageId(user.id);
    state.max_message_id = maxId > 0 ? maxId : -1;
  }
  // The legacy list, left out for clients that name user_topic among the types they fetch.
  if (want('muted_topics') && !(o.fetchTypesNamed && want('user_topic'))) state.muted_topics = await mutedTopicsOf(db, user.id);
  if (want('muted_users')) state.muted_users = await mutedUsersOf(db, user.id);
  if (want('presence')) {
    const rows = await presenceRows(db, realm.id, -1, Math.floor(Date.now() / 1000) - 14 * 86400);
    state.presences = o.slimPresence ? modernPresences(rows) : legacyPresences(rows, users, services.emailDomains);
    state.presence_last_update_id = newestPresenceUpdateId(rows);
    state.server_timestamp = Date.now() / 1000;
  }
}

/** navigation_views, saved_snippets, scheduled_messages, reminders, recent_private_conversations, starred_messages, stop_words. */
async function personalListsState(c: StateContext): Promise<void> {
  const { services, user, state, want } = c;
  const db = services.database.db;
  if (want('navigation_views')) state.navigation_views = await listNavigationViews(services, user);
  if (want('saved_snippets')) state.saved_snippets = await listSnippets(db, user.id);
  if (want('scheduled_messages')) state.scheduled_messages = await listScheduledMessages(services, user);
  // The API description (level 469) gives /register's reminders the scheduled-message shape,
  // while GET /reminders and reminders events use the reminder shape; each follows its schema.
  if (want('reminders')) state.reminders = await listPendingReminders(services, user);
  if (want('recent_private_conversations')) {
    // Zulip's "recent" is its 1000 newest direct messages; here, the 1000 newest conversations.
    state.recent_private_conversations = (await recentDmConversations(db, user.id, 1000)).map((c) => ({
      max_message_id: c.maxMessageId,
      user_ids: c.participants.filter((id) => id !== user.id).sort((a, b) => a - b),
    }));
  }
  if (want('starred_messages')) state.starred_messages = await starredMessageIds(db, services.database.dialect, user.id);
  if (want('stop_words')) state.stop_words = [];
}

/** user_status, user_topic, video_calls, giphy, tenor, device and the realm's lists (folders, emoji, linkifiers, playgrounds, defaults). */
async function statusAndTopicsState(c: StateContext): Promise<void> {
  const { services, user, realm, o, state, want, topicName } = c;
  const db = services.database.db;
  if (want('user_status')) state.user_status = await userStatusState(services, realm.id, await c.visibleToViewer());
  if (want('user_topic')) state.user_topics = (await c.userTopics()).map((t) => ({ ...t, topic_name: topicName(t.topic_name) }));
  if (want('video_calls')) {
    // No configured provider needs a per-user OAuth token (Jitsi needs none, BigBlueButton and
    // Nextcloud Talk are signed by the server), so no user ever holds one.
    state.has_zoom_token = false;
    state.has_videocall_token = false;
  }
  if (want('giphy')) state.giphy_api_key = '';
  if (want('tenor')) state.tenor_api_key = '';
  if (want('device')) state.devices = await devicesState(db, user.id);
  if (want('channel_folders')) state.channel_folders = await listChannelFolders(db, realm.id, true);
  if (want('realm_domains')) state.realm_domains = await listRealmDomains(db, realm.id);
  if (want('realm_emoji')) state.realm_emoji = await realmEmojiState(db, realm.id);
  // Zulip's rule since level 176: linkifiers (URL templates) only for clients declaring
  // linkifier_url_template, and the older realm_filters always empty, since such clients would
  // read the templates as format strings.
  if (want('realm_linkifiers')) state.realm_linkifiers = o.linkifierUrlTemplate ? (await listLinkifiers(db, realm.id)).map(linkifierForClient) : [];
  if (want('realm_filters')) state.realm_filters = [];
  if (want('realm_playgrounds')) state.realm_playgrounds = await listPlaygrounds(db, realm.id);
  if (want('realm_embedded_bots')) state.realm_embedded_bots = [];
  if (want('realm_incoming_webhook_bots')) state.realm_incoming_webhook_bots = [];
  if (want('default_stream_groups')) state.realm_default_stream_groups = [];
  if (want('realm_user_settings_defaults')) {
    const defaults = await realmUserDefaults(db, realm.id);
    state.realm_user_settings_defaults = { ...defaults, available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS, emojiset_choices: EMOJISET_CHOICES };
  }
}

/** realm: the organization's settings and the server's limits. */
function realmState(c: StateContext): void {
  const { realm, graph, state, want } = c;
  const config = c.services.config;
  if (want('realm')) {
    Object.assign(state, realmStateFields(realm, graph, config.externalUrl, { bigBlueButton: config.bigBlueButton !== null, pushNotifications: config.pushBouncer !== null }), LIMITS, {
      server_min_deactivated_realm_deletion_days: 14,
      server_max_deactivated_realm_deletion_days: 60,
      server_presence_ping_interval_seconds: 60,
      server_presence_offline_threshold_seconds: 140,
      server_typing_started_expiry_period_milliseconds: 45000,
      server_typing_stopped_wait_period_milliseconds: 5000,
      server_typing_started_wait_period_milliseconds: 10000,
      max_icon_file_size_mib: 5,
      max_logo_file_size_mib: 5,
      max_file_upload_size_mib: config.maxFileUploadSizeMib,
      max_avatar_file_size_mib: 5,
      settings_send_digest_emails: false,
      zulip_plan_is_not_limited: true,
      upgrade_text_for_wide_organization_logo: '',
      development_environment: false,
      server_generation: Math.floor(Date.now() / 1000),
      password_min_length: config.passwordMinLength,
      password_max_length: PASSWORD_MAX_LENGTH,
      password_min_guesses: 10000,
      server_inline_image_preview: true,
      server_inline_url_embed_preview: false,
      server_thumbnail_formats: [],
      server_avatar_changes_disabled: false,
      server_name_changes_disabled: false,
      server_needs_upgrade: false,
      server_web_public_streams_enabled: true,
      server_emoji_data_url: `${config.externalUrl}/static/generated/emoji/emoji_api.json`,
      server_jitsi_server_url: null,
      server_can_summarize_topics: false,
      event_queue_longpoll_timeout_seconds: config.heartbeatSeconds + 40,
      demo_organization_scheduled_deletion_date: undefined,
      realm_empty_topic_display_name: 'general chat',
      max_bulk_new_subscription_messages: MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
      server_report_message_types: [],
      server_supported_permission_settings: { realm: {}, stream: {}, group: {} },
      gif_rating_policy_options: {},
    });
    delete state.demo_organization_scheduled_deletion_date;
  }
}

/** realm_user: the users the viewer may see, and the viewer's own fields and abilities. */
async function realmUserState(c: StateContext): Promise<void> {
  const { services, user, realm, o, graph, users, state, want } = c;
  const config = services.config;
  if (want('realm_user')) {
    const viewerIsAdmin = isRealmAdmin(user);
    // A guest the organization restricts sees only some users (can_access_all_users_group).
    const visible = await c.visibleToViewer();
    // realm_users as JSON text, each user's from the text kept for it (userJsonForClient);
    // realm_non_active_users as objects. The cached list may lack a user another process made a
    // moment ago (until its invalidation arrives): the client learns of them by the realm_user
    // event, which its queue gets all the same, so no database read here.
    const active: string[] = [];
    const inactive: unknown[] = [];
    const profiles = await realmProfileData(services, realm.id);
    const shape = { clientGravatar: o.clientGravatar, includeCustomProfileFields: true, omitIsActive: true };
    for (const u of users.values()) {
      if (visible && !visible.has(u.id)) {
        if (!o.userListIncomplete) active.push(JSON.stringify(inaccessibleUser(u.id, realm, config.externalUrl)));
        continue;
      }
      // Active users are listed without is_active (every one of them is).
      if (u.is_active) active.push(userJsonForClient(u, user, services.emailDomains, shape, profiles.get(u.id)));
      else inactive.push(userForClient(u, user, services.emailDomains, { clientGravatar: o.clientGravatar, includeCustomProfileFields: true, profileData: profiles.get(u.id) }));
    }
    const settings = realm.settings;
    const can = (groupId: number) => isUserInGroup(graph, user.id, groupId);
    Object.assign(state, {
      realm_users: new RawJson(`[${active.join(',')}]`),
      realm_non_active_users: inactive,
      avatar_source: 'G',
      avatar_url_medium: formatUser(user, services.emailDomains, { clientGravatar: false }).avatar_url,
      avatar_url: formatUser(user, services.emailDomains, { clientGravatar: false }).avatar_url,
      can_create_streams: can(settings.can_create_public_channel_group) || can(settings.can_create_private_channel_group),
      can_create_public_streams: can(settings.can_create_public_channel_group),
      can_create_private_streams: can(settings.can_create_private_channel_group),
      can_create_web_public_streams: settings.enable_spectator_access && can(settings.can_create_web_public_channel_group),
      can_subscribe_other_users: can(settings.can_add_subscribers_group),
      can_invite_others_to_realm: can(settings.can_invite_users_group),
      is_admin: viewerIsAdmin,
      is_owner: user.role === ROLE.owner,
      is_moderator: user.role === ROLE.moderator,
      is_guest: user.role === ROLE.guest,
      user_id: user.id,
      email: apiEmail(user, services.emailDomains),
      delivery_email: user.email,
      full_name: user.full_name,
      // The system bots every organization shares, by name, as Zulip lists them.
      cross_realm_bots: [...(await services.cache.systemBots()).values()]
        .filter((u) => u.is_active)
        .sort((a, b) => (a.full_name < b.full_name ? -1 : a.full_name > b.full_name ? 1 : 0))
        .map((u) => ({ ...formatUser(u, services.emailDomains, { clientGravatar: o.clientGravatar }), is_system_bot: true })),
    });
  }
}

/** realm_bot, realm_user_groups, default_streams. */
async function botsGroupsAndDefaultsState(c: StateContext): Promise<void> {
  const { services, user, realm, o, graph, users, state, want } = c;
  const db = services.database.db;
  if (want('realm_bot')) {
    const admin = isRealmAdmin(user);
    const bots = [...users.values()].filter((u) => u.is_bot && (admin || u.bot_owner_id === user.id));
    const outgoing = bots.filter((u) => u.bot_type === BOT_TYPE.outgoing_webhook).map((u) => u.id);
    const botServices = await servicesOf(db, outgoing);
    state.realm_bots = bots.map((u) => formatBot(u, services.emailDomains, botServices.get(u.id)));
  }

  if (want('realm_user_groups')) state.realm_user_groups = await userGroupsForClient(services, realm.id, graph, { includeDeactivated: o.includeDeactivatedGroups === true });

  // Guests are not told which channels new users join.
  if (want('default_streams')) state.realm_default_streams = user.role === ROLE.guest ? [] : await defaultStreamIds(db, realm.id);
}

/** The channel lists behind subscription and stream, when the client fetches either. */
function subscriptionData(c: StateContext): Promise<SubscriptionState> | undefined {
  const { services, user, o, want } = c;
  if (!want('subscription') && !want('stream')) return undefined;
  return subscriptionStateFor(services, user, {
    includeSubscribers: o.includeSubscribers !== false,
    includeArchived: o.archivedChannels === true,
    subscriptionRows: c.mySubscriptions(),
  });
}

/** subscription and stream. */
async function subscriptionState(c: StateContext, data: Promise<SubscriptionState> | undefined): Promise<void> {
  const { user, o, state, want } = c;
  if (data) {
    const subs = await data;
    // Clients without notification_settings_null read a channel's notification settings as
    // booleans: where the user has not chosen one (null), the global setting it inherits.
    if (!o.notificationSettingsNull) {
      const settings = userSettingsOf(user.settings);
      const inherited: Record<string, boolean> = {
        desktop_notifications: settings.enable_stream_desktop_notifications,
        audible_notifications: settings.enable_stream_audible_notifications,
        push_notifications: settings.enable_stream_push_notifications,
        email_notifications: settings.enable_stream_email_notifications,
        wildcard_mentions_notify: settings.wildcard_mentions_notify,
      };
      for (const entry of [...subs.subscriptions, ...subs.unsubscribed]) {
        for (const [key, value] of Object.entries(inherited)) if (entry[key] === null) entry[key] = value;
      }
    }
    if (want('subscription')) {
      state.subscriptions = subs.subscriptions;
      state.unsubscribed = subs.unsubscribed;
      state.never_subscribed = subs.never_subscribed;
    }
    if (want('stream')) state.streams = subs.streams;
  }
}

type UnreadSummary = Awaited<ReturnType<typeof unreadSummary>>;

/** The unread summary behind unread_msgs, which needs both message and update_message_flags. */
function unreadData(c: StateContext): Promise<UnreadSummary> | undefined {
  return c.want('message') && c.want('update_message_flags') ? unreadSummary(c.services, c.user, { subscriptions: c.mySubscriptions(), userTopics: c.userTopics() }) : undefined;
}

/** unread_msgs. */
async function unreadState(c: StateContext, data: Promise<UnreadSummary> | undefined): Promise<void> {
  if (!data) return;
  const unread = await data;
  for (const s of unread.streams) s.topic = c.topicName(s.topic);
  c.state.unread_msgs = unread;
}

/** user_settings, and the legacy top-level settings for clients without user_settings_object. */
function userSettingsState(c: StateContext): void {
  const { user, o, state, want } = c;
  if (want('user_settings')) {
    state.user_settings = {
      ...userSettingsOf(user.settings),
      timezone: user.timezone,
      available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS,
      emojiset_choices: EMOJISET_CHOICES,
    };
  }
  // The legacy form for clients without user_settings_object that ask for the older event types
  // (as Zulip answered them before feature level 439; zulip-terminal 0.7.0 reads these fields).
  if (!o.userSettingsObject && want('update_display_settings')) {
    const settings = userSettingsOf(user.settings) as Record<string, unknown>;
    for (const key of LEGACY_DISPLAY_SETTINGS) state[key] = settings[key];
    state.emojiset_choices = EMOJISET_CHOICES;
    state.timezone = user.timezone;
  }
  if (!o.userSettingsObject && want('update_global_notifications')) {
    const settings = userSettingsOf(user.settings) as Record<string, unknown>;
    for (const key of LEGACY_NOTIFICATION_SETTINGS) state[key] = settings[key];
    state.available_notification_sounds = AVAILABLE_NOTIFICATION_SOUNDS;
  }
  if (want('user_settings') || want('realm_user')) {
    state.receives_typing_notifications = userSettingsOf(user.settings).receives_typing_notifications;
  }
}
