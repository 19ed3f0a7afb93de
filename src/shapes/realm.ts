// The organization as /register reports it (the `realm_*` keys of the `realm` event type).
import { createHash } from 'node:crypto';
import type { GroupGraph } from '../store/cache.js';
import { REALM_GROUP_SETTING_DEFAULTS, type Realm } from '../store/realms.js';
import { groupSettingValue } from '../access/group_settings.js';

const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
};

/** A stable identifier derived from the organization, as Zulip's realm_uuid. */
function realmUuid(realm: Realm): string {
  const h = createHash('sha256').update(`confab-realm:${realm.id}:${realm.date_created}:${realm.string_id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function realmUrl(realm: Realm, externalUrl: string): string {
  if (!realm.string_id) return externalUrl;
  const u = new URL(externalUrl);
  // Organizations other than the root one live on a subdomain of the server's host.
  if (!/^[\d.]+$/.test(u.hostname) && u.hostname !== 'localhost') u.hostname = `${realm.string_id}.${u.hostname}`;
  return u.toString().replace(/\/$/, '');
}

/**
 * The domain of bot addresses and of the placeholder addresses of hidden users: the
 * organization's host when it can form an email address (Zulip's get_fake_email_domain), else a
 * fixed local domain (an IP address or a single-label host cannot).
 */
export function botDomain(realm: Realm, externalUrl: string): string {
  const host = new URL(realmUrl(realm, externalUrl)).hostname.toLowerCase();
  const labels = host.split('.');
  const validName = labels.length >= 2 && labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l)) && /^[a-z][a-z0-9-]*$/.test(labels.at(-1)!);
  return validName ? host : 'localhost.localdomain';
}

export function realmStateFields(realm: Realm, graph: GroupGraph, externalUrl: string, o: { bigBlueButton?: boolean; pushNotifications?: boolean } = {}): Record<string, unknown> {
  const s = realm.settings;
  const url = realmUrl(realm, externalUrl);
  const out: Record<string, unknown> = {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_date_created: realm.date_created,
    realm_uri: url,
    realm_url: url,
    realm_uuid: realmUuid(realm),
    realm_bot_domain: botDomain(realm, externalUrl),
    realm_icon_url: `${externalUrl}/static/images/logo/zulip-icon-128x128.png`,
    realm_icon_source: s.icon_source,
    realm_logo_url: `${externalUrl}/static/images/logo/zulip-org-logo.svg`,
    realm_logo_source: s.logo_source,
    realm_night_logo_url: `${externalUrl}/static/images/logo/zulip-org-logo.svg`,
    realm_night_logo_source: s.night_logo_source,
    realm_topics_policy: s.topics_policy,
    realm_mandatory_topics: s.mandatory_topics,
    realm_enable_spectator_access: s.enable_spectator_access,
    realm_waiting_period_threshold: s.waiting_period_threshold,
    realm_invite_required: s.invite_required,
    realm_emails_restricted_to_domains: s.emails_restricted_to_domains,
    realm_disallow_disposable_email_addresses: s.disallow_disposable_email_addresses,
    realm_message_content_edit_limit_seconds: s.message_content_edit_limit_seconds,
    realm_message_content_delete_limit_seconds: s.message_content_delete_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: s.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds: s.move_messages_between_streams_limit_seconds,
    realm_allow_message_editing: s.allow_message_editing,
    realm_allow_edit_history: s.allow_edit_history,
    realm_message_edit_history_visibility_policy: s.message_edit_history_visibility_policy,
    realm_message_retention_days: s.message_retention_days,
    realm_inline_image_preview: s.inline_image_preview,
    realm_inline_url_embed_preview: s.inline_url_embed_preview,
    realm_send_welcome_emails: s.send_welcome_emails,
    realm_digest_emails_enabled: s.digest_emails_enabled,
    realm_digest_weekday: s.digest_weekday,
    realm_default_language: s.default_language,
    realm_default_code_block_language: s.default_code_block_language,
    realm_avatar_changes_disabled: s.avatar_changes_disabled,
    realm_name_changes_disabled: s.name_changes_disabled,
    realm_email_changes_disabled: s.email_changes_disabled,
    realm_require_unique_names: s.require_unique_names,
    realm_video_chat_provider: s.video_chat_provider,
    realm_available_video_chat_providers: o.bigBlueButton ? { ...VIDEO_CHAT_PROVIDERS, big_blue_button: { name: 'BigBlueButton', id: 4 } } : VIDEO_CHAT_PROVIDERS,
    realm_jitsi_server_url: s.jitsi_server_url,
    realm_gif_rating_policy: s.giphy_rating,
    realm_enable_read_receipts: s.enable_read_receipts,
    realm_enable_guest_user_indicator: s.enable_guest_user_indicator,
    realm_enable_guest_user_dm_warning: s.enable_guest_user_dm_warning,
    realm_moderation_request_channel_id: s.moderation_request_channel_id,
    realm_new_stream_announcements_stream_id: s.new_stream_announcements_stream_id,
    realm_signup_announcements_stream_id: s.signup_announcements_stream_id,
    realm_zulip_update_announcements_stream_id: s.zulip_update_announcements_stream_id,
    realm_want_advertise_in_communities_directory: s.want_advertise_in_communities_directory,
    realm_org_type: s.org_type,
    realm_plan_type: s.plan_type,
    realm_message_content_allowed_in_email_notifications: s.message_content_allowed_in_email_notifications,
    realm_welcome_message_custom_text: s.welcome_message_custom_text,
    realm_require_e2ee_push_notifications: s.require_e2ee_push_notifications,
    realm_send_channel_events_messages: true,
    realm_owner_full_content_access: false,
    realm_presence_disabled: false,
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_push_notifications_enabled: !!o.pushNotifications,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_upload_quota_mib: null,
    realm_default_avatar_source: 'G',
    realm_default_external_accounts: {},
    realm_authentication_methods: {
      Email: { enabled: true, available: true },
    },
    // Legacy policies that group settings replaced; 1 means "members" for old clients.
    realm_create_public_stream_policy: 1,
    realm_create_private_stream_policy: 1,
    realm_create_web_public_stream_policy: 7,
    realm_wildcard_mention_policy: 5,
    realm_empty_topic_display_name: 'general chat',
  };
  for (const key of Object.keys(REALM_GROUP_SETTING_DEFAULTS) as Array<keyof typeof REALM_GROUP_SETTING_DEFAULTS>) {
    out[`realm_${key}`] = groupSettingValue(graph, s[key]);
  }
  return out;
}
