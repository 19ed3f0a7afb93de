// Personal settings and their defaults (Zulip's UserBaseSettings). A user's row stores only the
// values they changed; everything else reads from here.

export const USER_SETTING_DEFAULTS = {
  twenty_four_hour_time: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  translate_emoticons: true,
  display_emoji_reaction_users: true,
  default_language: 'en',
  web_home_view: 'inbox',
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: 'google',
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: 'on_hover',
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  web_inbox_show_channel_folders: true,
  web_left_sidebar_show_channel_folders: true,
  web_left_sidebar_unreads_count_summary: true,
  enter_sends: false,
  enable_drafts_synchronization: true,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_digest_emails: true,
  enable_marketing_emails: true,
  enable_login_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 3,
  automatically_follow_topics_where_mentioned: true,
  resolved_topic_notice_auto_read_policy: 'except_followed',
  presence_enabled: true,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  email_address_visibility: 1,
  web_navigate_to_sent_message: true,
};

export type UserSettings = typeof USER_SETTING_DEFAULTS;

export const AVAILABLE_NOTIFICATION_SOUNDS = ['chime', 'ding', 'ding-dong', 'glass', 'knock', 'plink', 'zulip'];

export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];

/** The user's effective settings: stored overrides over the defaults. */
export function userSettingsOf(stored: Record<string, unknown>): UserSettings {
  const out = { ...USER_SETTING_DEFAULTS } as Record<string, unknown>;
  for (const [k, v] of Object.entries(stored)) if (k in USER_SETTING_DEFAULTS && k !== 'timezone') out[k] = v;
  return out as UserSettings;
}

/** How each personal setting is read from a request and which values it takes. */
export type SettingSpec =
  | { kind: 'bool' }
  | { kind: 'int'; values?: readonly number[]; min?: number; max?: number }
  | { kind: 'str'; values?: readonly string[]; check?: (v: string) => boolean; normalize?: (v: string) => string };

/**
 * Zulip's get_available_language_codes: "en" and Django's to_language of each locale directory
 * with translations (compilemessages' extract_language_options), lowercased with "-".
 */
export const AVAILABLE_LANGUAGE_CODES: readonly string[] = [
  'ar', 'be', 'bg', 'bn', 'bqi', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'en-gb', 'eo', 'es', 'et', 'fa', 'fi', 'fr', 'gl', 'gu',
  'hi', 'hu', 'id', 'it', 'ja', 'kk', 'ko', 'lt', 'lv', 'ml', 'mn', 'my', 'nl', 'no', 'pl', 'pt', 'pt-br', 'pt-pt', 'ro', 'ru', 'si',
  'sl', 'sr', 'sv', 'ta', 'tl', 'tr', 'uk', 'vi', 'zh-hans', 'zh-hant', 'zh-tw',
];
/**
 * The language_name Zulip's events carry with default_language (get_language_name: the "name" of
 * locale/language_name_map.json). That file is generated: its names are Django's LANG_INFO
 * name_local for the pinned Django, except English, which compilemessages writes itself
 * ("name_local": "English"). Only that entry is known here; other codes are named by their code.
 */
export function languageName(code: string): string {
  return code === 'en' ? 'English' : code;
}

let timeZones: Set<string> | undefined;
export function isTimeZone(v: string): boolean {
  timeZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
  return v === '' || timeZones.has(v);
}

const bool = { kind: 'bool' } as const;
const oneTo = (n: number) => ({ kind: 'int', values: Array.from({ length: n }, (_, i) => i + 1) }) as const;

export const USER_SETTING_SPECS: Record<string, SettingSpec> = {
  twenty_four_hour_time: bool,
  web_mark_read_on_scroll_policy: oneTo(3),
  // The founding document states the accepted set as 1, 2 and 4.
  web_channel_default_view: { kind: 'int', values: [1, 2, 4] },
  starred_message_counts: bool,
  receives_typing_notifications: bool,
  web_suggest_update_timezone: bool,
  fluid_layout_width: bool,
  high_contrast_mode: bool,
  web_font_size_px: { kind: 'int', min: 12, max: 20 },
  web_line_height_percent: { kind: 'int', min: 122, max: 158 },
  color_scheme: oneTo(3),
  enable_drafts_synchronization: bool,
  translate_emoticons: bool,
  display_emoji_reaction_users: bool,
  default_language: { kind: 'str', values: AVAILABLE_LANGUAGE_CODES },
  web_home_view: { kind: 'str', values: ['recent', 'inbox', 'all_messages', 'recent_topics'], normalize: (v) => (v === 'recent_topics' ? 'recent' : v) },
  web_escape_navigates_to_home_view: bool,
  left_side_userlist: bool,
  // Zulip's set names and the founding document's names for the same choices.
  emojiset: { kind: 'str', values: ['google', 'twitter', 'text', 'emoji_set_a', 'emoji_set_b', 'google-blob'] },
  demote_inactive_streams: oneTo(3),
  user_list_style: oneTo(3),
  web_animate_image_previews: { kind: 'str', values: ['always', 'on_hover', 'never'] },
  web_stream_unreads_count_display_policy: oneTo(3),
  hide_ai_features: bool,
  web_inbox_show_channel_folders: bool,
  web_left_sidebar_show_channel_folders: bool,
  web_left_sidebar_unreads_count_summary: bool,
  timezone: { kind: 'str', check: isTimeZone },
  enable_stream_desktop_notifications: bool,
  enable_stream_email_notifications: bool,
  enable_stream_push_notifications: bool,
  enable_stream_audible_notifications: bool,
  notification_sound: { kind: 'str', values: [...AVAILABLE_NOTIFICATION_SOUNDS, 'none'] },
  enable_desktop_notifications: bool,
  enable_sounds: bool,
  email_notifications_batching_period_seconds: { kind: 'int', min: 120, max: 604800 },
  enable_offline_email_notifications: bool,
  enable_offline_push_notifications: bool,
  enable_online_push_notifications: bool,
  enable_followed_topic_desktop_notifications: bool,
  enable_followed_topic_email_notifications: bool,
  enable_followed_topic_push_notifications: bool,
  enable_followed_topic_audible_notifications: bool,
  enable_digest_emails: bool,
  enable_marketing_emails: bool,
  enable_login_emails: bool,
  message_content_in_email_notifications: bool,
  pm_content_in_desktop_notifications: bool,
  wildcard_mentions_notify: bool,
  enable_followed_topic_wildcard_mentions_notify: bool,
  desktop_icon_count_display: oneTo(4),
  realm_name_in_email_notifications_policy: oneTo(3),
  automatically_follow_topics_policy: oneTo(4),
  automatically_unmute_topics_in_muted_streams_policy: oneTo(4),
  automatically_follow_topics_where_mentioned: bool,
  resolved_topic_notice_auto_read_policy: { kind: 'str', values: ['always', 'except_followed', 'never'] },
  presence_enabled: bool,
  enter_sends: bool,
  send_private_typing_notifications: bool,
  send_stream_typing_notifications: bool,
  send_read_receipts: bool,
  allow_private_data_export: bool,
  email_address_visibility: oneTo(5),
  web_navigate_to_sent_message: bool,
};

/** The key, inside the stored settings, listing the settings a user set themselves. */
export const SELF_EDITED_KEY = '__self_edited';

// ---- the legacy form, for clients without the user_settings_object capability ----

/**
 * The settings Zulip kept as top-level /register fields and sent in update_display_settings events
 * before feature level 89 (UserProfile.display_settings_legacy, with its later renames), for clients
 * that do not declare user_settings_object (zulip-terminal 0.7.0 reads them).
 */
export const LEGACY_DISPLAY_SETTINGS = [
  'color_scheme', 'default_language', 'web_home_view', 'demote_inactive_streams', 'emojiset',
  'enable_drafts_synchronization', 'enter_sends', 'fluid_layout_width', 'high_contrast_mode',
  'left_side_userlist', 'starred_message_counts', 'translate_emoticons', 'twenty_four_hour_time',
] as const;

/** The same for update_global_notifications (UserProfile.notification_settings_legacy). */
export const LEGACY_NOTIFICATION_SETTINGS = [
  'desktop_icon_count_display', 'email_notifications_batching_period_seconds', 'enable_desktop_notifications',
  'enable_digest_emails', 'enable_login_emails', 'enable_marketing_emails', 'enable_offline_email_notifications',
  'enable_offline_push_notifications', 'enable_online_push_notifications', 'enable_sounds',
  'enable_stream_audible_notifications', 'enable_stream_desktop_notifications', 'enable_stream_email_notifications',
  'enable_stream_push_notifications', 'message_content_in_email_notifications', 'notification_sound',
  'pm_content_in_desktop_notifications', 'presence_enabled', 'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
] as const;

export const LEGACY_SETTINGS_EVENT_TYPES = ['update_display_settings', 'update_global_notifications'];
