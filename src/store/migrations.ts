// One ordered list of migrations for SQLite and PostgreSQL (the steps live in migrations/), and
// the runner that applies each once, under a lock, so several processes starting together do not race.
import { Kysely, sql, type Migration } from 'kysely';
import type { DialectName } from './dialect.js';
import { initial } from './migrations/v1_core.js';
import {
  alertWords,
  channelFolders,
  draftsAndSnippets,
  editHistory,
  emailChanges,
  linkifiers,
  mutedUsers,
  navigationViews,
  playgrounds,
  presence,
  pushTokens,
  scheduledMessages,
  userTopics,
} from './migrations/v2_features.js';
import { attachments, defaultChannelsProfileFields, emojiReactionsStatus, messageSearch, reminders } from './migrations/v3_api.js';
import { dmGroupMembers } from './migrations/v7_visibility.js';
import { invites } from './migrations/v4_admin.js';
import { exportsDevices } from './migrations/v5_exports.js';
import { digestSent, emailOutbox, missedMessageNotices, passwordResets, pushQueue } from './migrations/v80_notifications.js';
import { submessages } from './migrations/v40_submessages.js';
import { outgoingWebhooks } from './migrations/v70_outgoing_webhooks.js';
import { uniqueNames } from './migrations/v50_hardening.js';
import { uniqueLinkifierPatterns } from './migrations/v51_linkifier_patterns.js';
import { legacySystemBots } from './migrations/v30_system_bots.js';
import { unreadStatistics } from './migrations/v90_planner_statistics.js';
import { realmDomains } from './migrations/v91_realm_domains.js';
import { systemGroupMentions } from './migrations/v95_system_group_mentions.js';
import { alertWordsRealm } from './migrations/v96_alert_words_realm.js';

export { STREAM_GROUP_SETTINGS } from './migrations/v1_core.js';

function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_drafts_snippets': draftsAndSnippets(dialect),
    '0003_scheduled_messages': scheduledMessages(dialect),
    '0004_user_topics': userTopics(dialect),
    '0005_muted_users': mutedUsers(dialect),
    '0006_navigation_views': navigationViews(dialect),
    '0007_channel_folders': channelFolders(dialect),
    '0008_email_changes': emailChanges(dialect),
    '0009_push_tokens': pushTokens(dialect),
    '0010_playgrounds': playgrounds(dialect),
    '0011_linkifiers': linkifiers(dialect),
    '0012_presence': presence(dialect),
    '0013_alert_words': alertWords(dialect),
    '0014_edit_history': editHistory(dialect),
    '0015_emoji_reactions_status': emojiReactionsStatus(dialect),
    '0016_attachments': attachments(dialect),
    '0017_message_search': messageSearch(dialect),
    '0018_reminders': reminders(dialect),
    '0019_default_channels_profile_fields': defaultChannelsProfileFields(dialect),
    '0020_invites': invites(dialect),
    '0021_exports_devices': exportsDevices(dialect),
    '0023_dm_group_members': dmGroupMembers(dialect),
    '0030_system_bots': legacySystemBots(),
    '0040_submessages': submessages(dialect),
    '0050_unique_names': uniqueNames(dialect),
    '0051_linkifier_patterns': uniqueLinkifierPatterns(dialect),
    '0070_outgoing_webhooks': outgoingWebhooks(dialect),
    '0080_password_resets': passwordResets(dialect),
    '0081_email_outbox': emailOutbox(dialect),
    '0082_missed_message_notices': missedMessageNotices(dialect),
    '0083_push_queue': pushQueue(dialect),
    '0084_digest_sent': digestSent(dialect),
    '0090_unread_statistics': unreadStatistics(dialect),
    '0091_realm_domains': realmDomains(dialect),
    '0095_system_group_mentions': systemGroupMentions(),
    '0096_alert_words_realm': alertWordsRealm(),
  };
}

/**
 * Applies the migrations not yet recorded in confab_migrations, in order, in one transaction that
 * holds a lock (PostgreSQL: an advisory lock; SQLite: an immediate write lock), so servers that
 * start together migrate once. It looks only at its own table, in the connection's own schema.
 */
export async function migrate(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const migrations = migrationsFor(dialect);
  await db.connection().execute(async (conn) => {
    await sql`${sql.raw(dialect === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN')}`.execute(conn);
    try {
      if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(4242001)`.execute(conn);
      await sql`CREATE TABLE IF NOT EXISTS confab_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`.execute(conn);
      // In name order, by code unit: names begin with four digits (localeCompare would load ICU's
      // collation data, ~2 MB resident, for every start).
      const done = new Set((await sql<{ name: string }>`SELECT name FROM confab_migrations`.execute(conn)).rows.map((r) => r.name));
      for (const [name, migration] of Object.entries(migrations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (done.has(name)) continue;
        try {
          await migration.up(conn);
        } catch (err) {
          throw new Error(`migration ${name} failed: ${(err as Error).message}`);
        }
        await sql`INSERT INTO confab_migrations (name, applied_at) VALUES (${name}, ${Math.floor(Date.now() / 1000)})`.execute(conn);
      }
      await sql`COMMIT`.execute(conn);
    } catch (err) {
      await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}
