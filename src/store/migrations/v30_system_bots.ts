// Migration 0030: the system bots move to Zulip's internal organization (made at start, see
// actions/notification_bot.ts). Copies made earlier inside each organization are deactivated, so
// they leave realm_users; the messages they posted keep them as sender.
import { type Migration } from 'kysely';
import type { Db } from './helpers.js';

const LEGACY_SYSTEM_BOT_EMAILS = ['notification-bot@zulip.com', 'welcome-bot@zulip.com'];

export function legacySystemBots(): Migration {
  return {
    async up(db: Db) {
      await db.updateTable('users').set({ is_active: false }).where('is_bot', '=', true).where('email', 'in', LEGACY_SYSTEM_BOT_EMAILS).execute();
    },
  };
}
