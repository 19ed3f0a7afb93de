// The catalogue of every event Confab sends to clients, as Zulip's zerver/lib/event_types.py
// declares each of its events: one member of a discriminated union per `type` (and `op` where
// Zulip has ops), with the fields Zulip's API documents. publishAfterCommit accepts only these, so
// a misspelt or missing field is a compile error rather than a client's decoding failure.
//
// Objects that other modules shape (a person, a channel, a message, a group) are typed loosely
// here (`Dict`): their builders in shapes/ own their fields.

/** An API object built elsewhere (shapes/); its own builder types its fields. */
export type Dict = object;
/** A partial user object: the id and the fields that changed. */
export type PersonUpdate = { user_id: number } & Record<string, unknown>;

import { languageName, LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS } from '../lib/user_settings.js';

type Op<T extends string, O extends string, F> = { type: T; op: O } & F;

// --- Messages ----------------------------------------------------------------------------------

export type MessageEvent = { type: 'message'; message: Dict; flags?: string[] };
export type UpdateMessageEvent = {
  type: 'update_message';
  user_id: number | null;
  message_id: number;
  message_ids: number[];
  edit_timestamp: number;
  rendering_only: boolean;
  flags?: string[];
  orig_content?: string;
  orig_rendered_content?: string;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
  stream_id?: number;
  stream_name?: string;
  propagate_mode?: string;
  new_stream_id?: number;
  orig_subject?: string;
  subject?: string;
  topic_links?: unknown[];
};
/** A channel message's deletion names its channel and topic (clients update their topic lists). */
export type DeleteMessageEvent =
  | { type: 'delete_message'; message_ids: number[]; message_type: 'stream'; stream_id: number; topic: string }
  | { type: 'delete_message'; message_ids: number[]; message_type: 'private' };
type FlagsFields = { operation: 'add' | 'remove'; flag: string; messages: number[]; all: boolean };
/** Zulip sends `message_details` (what a client needs to count an unread message again) only on remove. */
export type UpdateMessageFlagsEvent =
  | Op<'update_message_flags', 'add', FlagsFields & { operation: 'add' }>
  | Op<'update_message_flags', 'remove', FlagsFields & { operation: 'remove'; message_details?: Dict }>;
export type ReactionEvent = {
  type: 'reaction';
  op: 'add' | 'remove';
  user_id: number;
  user: { user_id: number; email: string; full_name: string };
  message_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
};
export type SubmessageEvent = { type: 'submessage'; msg_type: string; message_id: number; submessage_id: number; sender_id: number; content: string };
type TypingSender = { user_id: number; email: string };
/** A channel's typing notice names the topic; a direct one names the conversation's members. */
export type TypingEvent =
  | Op<'typing', 'start' | 'stop', { message_type: 'stream'; sender: TypingSender; stream_id: number; topic: string }>
  | Op<'typing', 'start' | 'stop', { message_type: 'direct'; sender: TypingSender; recipients: TypingSender[] }>;
export type TypingEditMessageEvent = {
  type: 'typing_edit_message';
  op: 'start' | 'stop';
  sender_id: number;
  message_id: number;
  recipient: { type: 'channel'; channel_id: number; topic: string } | { type: 'direct'; user_ids: number[] };
};

// --- Channels and subscriptions ------------------------------------------------------------------

export type StreamEvent =
  | Op<'stream', 'create', { streams: Dict[] }>
  | Op<'stream', 'delete', { streams: Array<{ stream_id: number } & Dict>; stream_ids: number[] }>
  | StreamUpdateEvent;
/** A channel property changed; the three optional fields ride along with the properties Zulip pairs them with. */
export type StreamUpdateEvent = Op<'stream', 'update', {
  stream_id: number;
  name: string;
  property: string;
  value: unknown;
  /** With `description`. */
  rendered_description?: string;
  /** With `invite_only` (the channel's whole access policy in one event). */
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
}>;
export type SubscriptionEvent =
  | Op<'subscription', 'add', { subscriptions: Dict[] }>
  | Op<'subscription', 'remove', { subscriptions: Array<{ stream_id: number; name: string }> }>
  | Op<'subscription', 'update', { stream_id: number; property: string; value: unknown }>
  | Op<'subscription', 'peer_add' | 'peer_remove', { stream_ids: number[]; user_ids: number[] }>;
export type DefaultStreamsEvent = { type: 'default_streams'; default_streams: number[] };
export type ChannelFolderEvent =
  | Op<'channel_folder', 'add', { channel_folder: Dict }>
  | Op<'channel_folder', 'update', { channel_folder_id: number; data: Dict }>
  | Op<'channel_folder', 'reorder', { order: number[] }>;
export type UserTopicEvent = { type: 'user_topic'; stream_id: number; topic_name: string; last_updated: number; visibility_policy: number };
export type MutedTopicsEvent = { type: 'muted_topics'; muted_topics: unknown[] };

// --- Users and groups ----------------------------------------------------------------------------

export type RealmUserEvent =
  | Op<'realm_user', 'add', { person: Dict }>
  | Op<'realm_user', 'update', { person: PersonUpdate }>
  | Op<'realm_user', 'remove', { person: PersonUpdate }>;
export type RealmBotEvent =
  | Op<'realm_bot', 'add', { bot: Dict }>
  | Op<'realm_bot', 'update', { bot: PersonUpdate }>
  | Op<'realm_bot', 'remove' | 'delete', { bot: { user_id: number; full_name?: string } }>;
export type UserGroupEvent =
  | Op<'user_group', 'add', { group: Dict }>
  | Op<'user_group', 'update', { group_id: number; data: Dict }>
  | Op<'user_group', 'remove', { group_id: number }>
  | Op<'user_group', 'add_members' | 'remove_members', { group_id: number; user_ids: number[] }>
  | Op<'user_group', 'add_subgroups' | 'remove_subgroups', { group_id: number; direct_subgroup_ids: number[] }>;
export type PresenceEvent = { type: 'presence'; user_id: number; email: string; server_timestamp: number; presence: Dict };
export type UserStatusEvent = {
  type: 'user_status';
  user_id: number;
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
};
export type CustomProfileFieldsEvent = { type: 'custom_profile_fields'; fields: Dict[] };
export type MutedUsersEvent = { type: 'muted_users'; muted_users: Array<{ id: number; timestamp: number }> };

// --- One's own settings and data -----------------------------------------------------------------

export type UserSettingsEvent = { type: 'user_settings'; op: 'update'; property: string; value: unknown; language_name?: string };
/** Zulip's events before user_settings (sent to clients without the user_settings_object capability). */
export type UpdateDisplaySettingsEvent = { type: 'update_display_settings'; user: string; setting_name: string; setting: unknown; language_name?: string };
export type UpdateGlobalNotificationsEvent = { type: 'update_global_notifications'; user: string; notification_name: string; setting: unknown };
export type AlertWordsEvent = { type: 'alert_words'; alert_words: string[] };
export type DraftsEvent =
  | Op<'drafts', 'add', { drafts: Dict[] }>
  | Op<'drafts', 'update', { draft: { id: number } & Dict }>
  | Op<'drafts', 'remove', { draft_id: number }>;
export type SavedSnippetsEvent =
  | Op<'saved_snippets', 'add' | 'update', { saved_snippet: { id: number } & Dict }>
  | Op<'saved_snippets', 'remove', { saved_snippet_id: number }>;
export type ScheduledMessagesEvent =
  | Op<'scheduled_messages', 'add', { scheduled_messages: Dict[] }>
  | Op<'scheduled_messages', 'update', { scheduled_message: Dict }>
  | Op<'scheduled_messages', 'remove', { scheduled_message_id: number }>;
export type RemindersEvent = Op<'reminders', 'add', { reminders: Dict[] }> | Op<'reminders', 'remove', { reminder_id: number }>;
export type NavigationViewEvent =
  | Op<'navigation_view', 'add', { navigation_view: { fragment: string; is_pinned: boolean; name: string | null } }>
  | Op<'navigation_view', 'update', { fragment: string; data: Dict }>
  | Op<'navigation_view', 'remove', { fragment: string }>;
export type AttachmentEvent = Op<'attachment', 'add' | 'update' | 'remove', { attachment: Dict; upload_space_used: number }>;
export type DeviceUpdateEvent = Extract<DeviceEvent, { op: 'update' }>;
export type DeviceEvent =
  | Op<'device', 'add', { device_id: number }>
  | Op<'device', 'remove', { device_id: number }>
  | Op<'device', 'update', {
      device_id: number;
      push_key_id?: number | null;
      push_token_id?: string | null;
      pending_push_token_id?: string | null;
      push_token_last_updated_timestamp?: number;
      push_registration_error_code?: string | null;
    }>;

// --- The organization ----------------------------------------------------------------------------

export type RealmEvent =
  | Op<'realm', 'update', { property: string; value: unknown }>
  | Op<'realm', 'update_dict', { property: 'default' | 'icon' | 'logo' | 'night_logo'; data: Dict }>
  | Op<'realm', 'deactivated', { realm_id: number }>;
export type RealmEmojiEvent = { type: 'realm_emoji'; op: 'update'; realm_emoji: Dict };
export type RealmLinkifiersEvent = { type: 'realm_linkifiers'; realm_linkifiers: Dict[] };
export type RealmPlaygroundsEvent = { type: 'realm_playgrounds'; realm_playgrounds: Dict[] };
export type RealmDomainsEvent =
  | { type: 'realm_domains'; op: 'add' | 'change'; realm_domain: { domain: string; allow_subdomains: boolean } }
  | { type: 'realm_domains'; op: 'remove'; domain: string };
export type RealmExportEvent = { type: 'realm_export'; exports: Dict[] };
export type RealmExportConsentEvent = { type: 'realm_export_consent'; user_id: number; consented: boolean };
export type RealmUserSettingsDefaultsEvent = { type: 'realm_user_settings_defaults'; op: 'update'; property: string; value: unknown };
export type InvitesChangedEvent = { type: 'invites_changed' };

/** Every event a client can receive from Confab (the queue adds `id`; heartbeats come from the queue). */
export type ConfabEvent =
  | MessageEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | UpdateMessageFlagsEvent
  | ReactionEvent
  | SubmessageEvent
  | TypingEvent
  | TypingEditMessageEvent
  | StreamEvent
  | SubscriptionEvent
  | DefaultStreamsEvent
  | ChannelFolderEvent
  | UserTopicEvent
  | MutedTopicsEvent
  | RealmUserEvent
  | RealmBotEvent
  | UserGroupEvent
  | PresenceEvent
  | UserStatusEvent
  | CustomProfileFieldsEvent
  | MutedUsersEvent
  | UserSettingsEvent
  | UpdateDisplaySettingsEvent
  | UpdateGlobalNotificationsEvent
  | AlertWordsEvent
  | DraftsEvent
  | SavedSnippetsEvent
  | ScheduledMessagesEvent
  | RemindersEvent
  | NavigationViewEvent
  | AttachmentEvent
  | DeviceEvent
  | RealmEvent
  | RealmEmojiEvent
  | RealmLinkifiersEvent
  | RealmPlaygroundsEvent
  | RealmDomainsEvent
  | RealmExportEvent
  | RealmExportConsentEvent
  | RealmUserSettingsDefaultsEvent
  | InvitesChangedEvent;

/** What a queue itself adds: the keep-alive and Zulip's heartbeat. */
export type HeartbeatEvent = { type: 'heartbeat' };

/** Messages between Confab's processes on the bus; no client sees them. */
export type ControlEvent =
  | { type: '__cache_invalidation'; origin: string; what: unknown }
  | { type: '__handover'; marker: string; to: string };

export type ConfabEventType = ConfabEvent['type'];

/** Between processes, not for clients: control messages' types start with `__`. */
export function isControlEvent(e: ConfabEvent | ControlEvent): e is ControlEvent {
  return e.type.startsWith('__');
}

// --- Builders for events made in more than one place ---------------------------------------------

/** The delete_message event for one message, as clients with bulk deletion expect it. */
export function deleteMessageEvent(m: { id: number; recipient_type: string; stream_id: number | null; topic: string }): DeleteMessageEvent {
  if (m.recipient_type === 'direct' || m.stream_id === null) return { type: 'delete_message', message_ids: [m.id], message_type: 'private' };
  return { type: 'delete_message', message_ids: [m.id], message_type: 'stream', stream_id: m.stream_id, topic: m.topic };
}

/**
 * The legacy events that accompany a user_settings event for this setting, as Zulip sent them
 * (`user` is the API email). The time zone is a display setting there too.
 */
export function legacySettingEvents(property: string, value: unknown, apiEmail: string): Array<UpdateGlobalNotificationsEvent | UpdateDisplaySettingsEvent> {
  const out: Array<UpdateGlobalNotificationsEvent | UpdateDisplaySettingsEvent> = [];
  if ((LEGACY_NOTIFICATION_SETTINGS as readonly string[]).includes(property)) {
    out.push({ type: 'update_global_notifications', user: apiEmail, notification_name: property, setting: value });
  }
  if ((LEGACY_DISPLAY_SETTINGS as readonly string[]).includes(property) || property === 'timezone') {
    out.push({ type: 'update_display_settings', user: apiEmail, setting_name: property, setting: value, ...(property === 'default_language' ? { language_name: languageName(String(value)) } : {}) });
  }
  return out;
}

/** A stream update event for one property of a channel (`name` is the channel's name after the change). */
export function streamUpdateEvent(
  stream: { id: number; name: string },
  property: string,
  value: unknown,
  extra: Pick<StreamUpdateEvent, 'rendered_description' | 'history_public_to_subscribers' | 'is_web_public'> = {},
): StreamUpdateEvent {
  return { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra };
}

/** The event for one flag set on or cleared from these messages (`details` only when marking unread). */
export function messageFlagsEvent(op: 'add' | 'remove', flag: string, messages: number[], details?: Dict): UpdateMessageFlagsEvent {
  // Fields in the order the inline objects had, so the JSON clients receive is byte-for-byte unchanged.
  if (op === 'add') return { type: 'update_message_flags', op, operation: op, flag, messages, all: false };
  return { type: 'update_message_flags', op, operation: op, flag, messages, all: false, ...(details ? { message_details: details } : {}) };
}

/** The event that tells a user's clients these messages are now read. */
export function readFlagsEvent(ids: number[]): UpdateMessageFlagsEvent {
  return messageFlagsEvent('add', 'read', ids);
}
