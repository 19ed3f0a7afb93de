// Row types of every table, as Kysely sees them. Booleans are stored as 0/1 in SQLite and as
// booleans in PostgreSQL; readers normalise them with `!!`.
import type { Generated, Selectable } from 'kysely';

export type Bool = boolean | number;

/** A row as the store hands it out: stored booleans (0/1 in SQLite) as JS booleans. */
export type Row<T> = {
  [K in keyof Selectable<T>]: boolean extends Selectable<T>[K] ? (null extends Selectable<T>[K] ? boolean | null : boolean) : Selectable<T>[K];
};

export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: Bool;
  /** JSON object of the organization settings (see store/realms.ts for the defaults). */
  settings: string;
}

export interface UserTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  full_name: string;
  role: number;
  is_bot: Bool;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_active: Bool;
  api_key: string;
  password_hash: string | null;
  /** Zulip's can_create_users: may create accounts through POST /users. */
  can_create_users: Bool;
  date_joined: number;
  timezone: string;
  avatar_version: number;
  /** JSON object of the personal settings that differ from the defaults. */
  settings: string;
}

export interface UserGroupTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  is_system_group: Bool;
  /** 0 for the anonymous groups that hold a group-setting value of direct members/subgroups. */
  named: Bool;
  deactivated: Bool;
  date_created: number;
  creator_id: number | null;
  can_add_members_group: number | null;
  can_join_group: number | null;
  can_leave_group: number | null;
  can_manage_group: number | null;
  can_mention_group: number | null;
  can_remove_members_group: number | null;
}

export interface GroupMemberTable {
  group_id: number;
  user_id: number;
}

export interface GroupSubgroupTable {
  group_id: number;
  subgroup_id: number;
}

export interface StreamTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: Bool;
  is_web_public: Bool;
  history_public_to_subscribers: Bool;
  date_created: number;
  creator_id: number | null;
  message_retention_days: number | null;
  is_archived: Bool;
  folder_id: number | null;
  topics_policy: string;
  first_message_id: number | null;
  can_add_subscribers_group: number;
  can_administer_channel_group: number;
  can_create_topic_group: number;
  can_delete_any_message_group: number;
  can_delete_own_message_group: number;
  can_move_messages_out_of_channel_group: number;
  can_move_messages_within_channel_group: number;
  can_remove_subscribers_group: number;
  can_resolve_topics_group: number;
  can_send_message_group: number;
  can_subscribe_group: number;
}

export interface DefaultStreamTable {
  realm_id: number;
  stream_id: number;
}

export interface SubscriptionTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  stream_id: number;
  active: Bool;
  color: string;
  is_muted: Bool;
  pin_to_top: Bool;
  desktop_notifications: Bool | null;
  audible_notifications: Bool | null;
  push_notifications: Bool | null;
  email_notifications: Bool | null;
  wildcard_mentions_notify: Bool | null;
}

/** type 2: a channel (type_id = stream id); type 3: a direct-message group (type_id = its id). */
export interface RecipientTable {
  id: Generated<number>;
  realm_id: number;
  type: number;
  type_id: number;
}

export interface DirectMessageGroupMemberTable {
  group_id: number;
  user_id: number;
}

export interface DirectMessageGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** The sorted, comma-joined user ids of everyone in the conversation. */
  user_ids_key: string;
}

export interface MessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  /** 'stream' or 'direct'. */
  recipient_type: string;
  recipient_id: number;
  stream_id: number | null;
  dm_group_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: number;
  last_edit_time: number | null;
  sending_client: string;
  /** JSON list of edits (see actions/message_edit.ts); null until the first edit. */
  edit_history: string | null;
  /** From the rendered HTML (actions/messages.ts contentFlags): a link, an image preview, an upload. */
  has_link: Generated<Bool>;
  has_image: Generated<Bool>;
  has_attachment: Generated<Bool>;
}

export interface UserMessageTable {
  user_id: number;
  message_id: number;
  flags: number;
}

export interface DraftTable {
  id: Generated<number>;
  user_id: number;
  /** '', 'stream' or 'private'. */
  type: string;
  /** JSON list of ids: the channel, or the other users. */
  to_ids: string;
  topic: string;
  content: string;
  last_edit_time: number;
}

export interface SavedSnippetTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
}

export interface ScheduledMessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  /** 'stream' or 'direct'. */
  recipient_type: string;
  stream_id: number | null;
  /** JSON list of the recipients' user ids (direct messages). */
  to_user_ids: string;
  topic: string;
  content: string;
  rendered_content: string;
  scheduled_timestamp: number;
  read_by_sender: Bool | null;
  sending_client: string;
  failed: Bool;
  delivered: Bool;
  delivered_message_id: number | null;
  /** Reminders only: the message the reminder is about. */
  reminder_target_message_id: number | null;
}

export interface UserTopicTable {
  id: Generated<number>;
  user_id: number;
  stream_id: number;
  topic_name: string;
  /** 0 inherit, 1 muted, 2 unmuted, 3 followed. */
  visibility_policy: number;
  last_updated: number;
}

export interface MutedUserTable {
  user_id: number;
  muted_user_id: number;
  date_muted: number;
}

export interface NavigationViewTable {
  id: Generated<number>;
  user_id: number;
  fragment: string;
  is_pinned: Bool;
  name: string | null;
}

export interface ChannelFolderTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  order_index: number;
  date_created: number;
  creator_id: number | null;
  is_archived: Bool;
}

export interface EmailChangeTable {
  id: Generated<number>;
  user_id: number;
  new_email: string;
  confirmation_key: string;
  created_at: number;
  used: Bool;
}

export interface PushDeviceTokenTable {
  id: Generated<number>;
  user_id: number;
  /** 1: Apple (APNs), 2: Android (FCM/GCM). */
  kind: number;
  token: string;
  appid: string | null;
  last_updated: number;
}

export interface RealmPlaygroundTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export interface RealmDomainTable {
  id: Generated<number>;
  realm_id: number;
  domain: string;
  allow_subdomains: boolean;
}

export interface LinkifierTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  /** JSON list of RFC 6570 templates. */
  alternative_url_templates: string;
  order_index: number;
}

export interface UserPresenceTable {
  user_id: number;
  realm_id: number;
  last_active_time: number | null;
  last_connected_time: number | null;
  /** Increases with every change in the organization (presence_last_update_id). */
  last_update_id: number;
}

export interface AlertWordTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  word: string;
}

export interface ChannelEmailTokenTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
  /** 0: the email gateway. */
  sender_id: number;
  creator_id: number;
  token: string;
}

export interface RealmUserDefaultsTable {
  realm_id: number;
  /** JSON object of the defaults that differ from Confab's own (lib/user_settings.ts). */
  settings: string;
}

export interface CustomProfileFieldTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  /** Zulip's field_data: JSON text (choices, or the external account's subtype), or ''. */
  field_data: string;
  order_index: number;
  display_in_profile_summary: Bool;
  required: Bool;
  editable_by_user: Bool;
  use_for_user_matching: Bool;
}

export interface CustomProfileFieldValueTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

export interface AttachmentTable {
  id: Generated<number>;
  realm_id: number;
  owner_id: number;
  /** `{realm_id}/{hex byte}/{random}/{sanitized name}`: the file's URL is /user_uploads/{path_id}. */
  path_id: string;
  /** The name the client uploaded it under. */
  file_name: string;
  content_type: string;
  size: number;
  create_time: number;
  url_secret: string;
}

export interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  author_id: number | null;
  /** The image's file name in the organization's emoji folder (null until written). */
  file_name: string | null;
  is_animated: Bool;
  deactivated: Bool;
}

export interface ReactionTable {
  id: Generated<number>;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  /** unicode_emoji | realm_emoji | zulip_extra_emoji */
  reaction_type: string;
}

export interface UserStatusTable {
  user_id: number;
  realm_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  timestamp: number;
}

export interface DB {
  realms: RealmTable;
  users: UserTable;
  user_groups: UserGroupTable;
  group_members: GroupMemberTable;
  group_subgroups: GroupSubgroupTable;
  streams: StreamTable;
  default_streams: DefaultStreamTable;
  subscriptions: SubscriptionTable;
  recipients: RecipientTable;
  direct_message_groups: DirectMessageGroupTable;
  direct_message_group_members: DirectMessageGroupMemberTable;
  messages: MessageTable;
  user_messages: UserMessageTable;
  drafts: DraftTable;
  saved_snippets: SavedSnippetTable;
  scheduled_messages: ScheduledMessageTable;
  user_topics: UserTopicTable;
  muted_users: MutedUserTable;
  navigation_views: NavigationViewTable;
  channel_folders: ChannelFolderTable;
  email_changes: EmailChangeTable;
  push_device_tokens: PushDeviceTokenTable;
  realm_playgrounds: RealmPlaygroundTable;
  realm_domains: RealmDomainTable;
  linkifiers: LinkifierTable;
  user_presence: UserPresenceTable;
  alert_words: AlertWordTable;
  attachments: AttachmentTable;
  attachment_messages: AttachmentMessageTable;
  realm_emoji: RealmEmojiTable;
  reactions: ReactionTable;
  user_status: UserStatusTable;
  channel_email_tokens: ChannelEmailTokenTable;
  realm_user_defaults: RealmUserDefaultsTable;
  custom_profile_fields: CustomProfileFieldTable;
  realm_exports: RealmExportTable;
  client_devices: ClientDeviceTable;
  custom_profile_field_values: CustomProfileFieldValueTable;
  invites: InviteTable;
  password_resets: PasswordResetTable;
  email_outbox: EmailOutboxTable;
  missed_message_notices: MissedMessageNoticeTable;
  push_queue: PushQueueTable;
  push_active: PushActiveTable;
  digest_sent: DigestSentTable;
  bot_services: BotServiceTable;
  outgoing_webhook_events: OutgoingWebhookEventTable;
  submessages: SubmessageTable;
}

/** An outgoing-webhook bot's endpoint (Zulip's Service). */
export interface BotServiceTable {
  id: Generated<number>;
  bot_id: number;
  name: string;
  base_url: string;
  /** 1 Zulip's format, 2 Slack-compatible. */
  interface: number;
  token: string;
}

/** A message that triggered an outgoing-webhook bot, waiting to be POSTed. */
export interface OutgoingWebhookEventTable {
  id: Generated<number>;
  realm_id: number;
  bot_id: number;
  message_id: number;
  /** 'mention' or 'direct_message'. */
  trigger: string;
  failures: Generated<number>;
  next_attempt_ms: number;
  claimed_until_ms: number | null;
}

export interface SubmessageTable {
  id: Generated<number>;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface InviteTable {
  id: Generated<number>;
  realm_id: number;
  referrer_id: number;
  is_multiuse: Bool;
  email: string | null;
  invited_as: number;
  confirmation_key: string;
  created_at: number;
  expires_at: number | null;
  stream_ids: string;
  group_ids: string;
  include_realm_default_subscriptions: Bool;
  notify_referrer_on_join: Bool;
  welcome_message_custom_text: string | null;
  status: number;
}

export interface RealmExportTable {
  id: Generated<number>;
  realm_id: number;
  acting_user_id: number | null;
  /** 1 public, 2 full with consent, 3 full without consent. */
  export_type: number;
  requested_ms: number;
  succeeded_ms: number | null;
  failed_ms: number | null;
  deleted_ms: number | null;
  /** Below the uploads folder, once the file is written. */
  file_path: string | null;
}

export interface ClientDeviceTable {
  id: Generated<number>;
  user_id: number;
  created_at: number;
  push_key_id: number | null;
  push_key: string | null;
  push_token_kind: string | null;
  push_token_id: string | null;
  pending_push_token_id: string | null;
  push_token_last_updated_timestamp: number | null;
  push_registration_error_code: string | null;
}

export interface PasswordResetTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the token in the link (hex): a leaked database does not hand out working links. */
  token_hash: string;
  created_at: number;
  used: Bool;
}

export interface EmailOutboxTable {
  id: Generated<number>;
  realm_id: number | null;
  /** What the mail is (password_reset, invitation, email_change, login, missed_message, digest). */
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_ms: number;
  send_after_ms: number;
  claimed_until_ms: number | null;
  attempts: number;
  sent_ms: number | null;
  failed: Bool;
  last_error: string | null;
}

export interface MissedMessageNoticeTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  message_id: number;
  /** Why: private_message, mentioned, group_mentioned, alert_word, topic_wildcard_mentioned, stream_wildcard_mentioned, (…)_in_followed_topic, followed_topic_email_notify, stream_email_notify. */
  trigger: string;
  mentioned_group_id: number | null;
  due_ms: number;
  claim_token: string | null;
  claimed_until_ms: number | null;
}

export interface PushQueueTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  message_id: number;
  trigger: string;
  mentioned_group_id: number | null;
  due_ms: number;
  attempts: number;
  claimed_until_ms: number | null;
}

/** A push a phone may still show (Zulip's active_mobile_push_notification flag). */
export interface PushActiveTable {
  user_id: number;
  message_id: number;
}

export interface DigestSentTable {
  user_id: number;
  sent_at: number;
}
