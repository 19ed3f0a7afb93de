// The shared OpenAPI description is Zulip's at feature level 469; the founding document (level 494)
// is newer and wins where they differ. This writes a copy of the description with exactly the
// founding document's additions that Confab serves, so the conformance checker judges responses
// by level 494. Each addition names the seed section it comes from.
//
//   node .ci/seed-spec.mjs IN.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node .ci/seed-spec.mjs IN.json OUT.json');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(input, 'utf8'));

function at(path) {
  let node = spec;
  for (const key of path) {
    node = node?.[key];
    if (node === undefined) throw new Error(`seed-spec: ${path.join('/')} not found in ${input}`);
  }
  return node;
}

const jsonSchema = (pathKey, method) => at(['paths', pathKey, method, 'responses', '200', 'content', 'application/json', 'schema', 'allOf', 1]);

// Seed "Linkifier" object: example_input, reverse_template, alternative_url_templates.
const linkifierFields = {
  example_input: { type: 'string', nullable: true },
  reverse_template: { type: 'string', nullable: true },
  alternative_url_templates: { type: 'array', items: { type: 'string' } },
};
const linkifierItems = [
  jsonSchema('/realm/linkifiers', 'get').properties.linkifiers.items,
  jsonSchema('/register', 'post').properties.realm_linkifiers.items,
  ...at(['paths', '/events', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'allOf', 1, 'properties', 'events', 'items', 'oneOf'])
    .filter((e) => e.properties?.realm_linkifiers?.items?.properties?.url_template)
    .map((e) => e.properties.realm_linkifiers.items),
];
for (const items of linkifierItems) Object.assign(items.properties, linkifierFields);

// Seed "Register response": has_videocall_token (feature level 493).
jsonSchema('/register', 'post').properties.has_videocall_token = { type: 'boolean' };

// Issue 14: the legacy settings form Confab still serves to clients without the
// user_settings_object capability (Zulip's before feature level 439): top-level copies of the
// older settings in /register, and the update_display_settings / update_global_notifications
// events. Their schemas are those of the same settings in user_settings.
const registerProps = jsonSchema('/register', 'post').properties;
const settingSchemas = registerProps.user_settings.properties;
const LEGACY_TOP_LEVEL = [
  'color_scheme', 'default_language', 'web_home_view', 'demote_inactive_streams', 'emojiset', 'enable_drafts_synchronization',
  'enter_sends', 'fluid_layout_width', 'high_contrast_mode', 'left_side_userlist', 'starred_message_counts', 'translate_emoticons',
  'twenty_four_hour_time', 'emojiset_choices', 'timezone',
  'desktop_icon_count_display', 'email_notifications_batching_period_seconds', 'enable_desktop_notifications', 'enable_digest_emails',
  'enable_login_emails', 'enable_marketing_emails', 'enable_offline_email_notifications', 'enable_offline_push_notifications',
  'enable_online_push_notifications', 'enable_sounds', 'enable_stream_audible_notifications', 'enable_stream_desktop_notifications',
  'enable_stream_email_notifications', 'enable_stream_push_notifications', 'message_content_in_email_notifications',
  'notification_sound', 'pm_content_in_desktop_notifications', 'presence_enabled', 'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify', 'available_notification_sounds',
];
for (const key of LEGACY_TOP_LEVEL) registerProps[key] ??= settingSchemas[key] ?? {};
const eventBranches = at(['paths', '/events', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'allOf', 1, 'properties', 'events', 'items', 'oneOf']);
const settingValue = { oneOf: [{ type: 'boolean' }, { type: 'integer' }, { type: 'string' }] };
eventBranches.push(
  { type: 'object', additionalProperties: false, properties: { id: { type: 'integer' }, type: { type: 'string', enum: ['update_display_settings'] }, user: { type: 'string' }, setting_name: { type: 'string' }, setting: settingValue, language_name: { type: 'string' } } },
  { type: 'object', additionalProperties: false, properties: { id: { type: 'integer' }, type: { type: 'string', enum: ['update_global_notifications'] }, user: { type: 'string' }, notification_name: { type: 'string' }, setting: settingValue } },
);

writeFileSync(output, JSON.stringify(spec));
console.log(`seed-spec: ${linkifierItems.length} linkifier schemas and the register response extended to level 494 → ${output}`);
