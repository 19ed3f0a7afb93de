// Migration 0095: system groups may be mentioned (non-silently) by nobody, as Zulip's
// GROUP_PERMISSION_SETTINGS["can_mention_group"] sets default_for_system_groups=role:nobody; they
// were made with role:everyone. Their silent mentions (@_*role:administrators*) are unaffected.
// Only groups still at that first value change.
import { sql, type Migration } from 'kysely';
import type { Db } from './helpers.js';

export function systemGroupMentions(): Migration {
  return {
    async up(db: Db) {
      await sql`
        UPDATE user_groups SET can_mention_group = (
          SELECT n.id FROM user_groups n WHERE n.realm_id = user_groups.realm_id AND n.is_system_group = ${true} AND n.name = 'role:nobody'
        )
        WHERE is_system_group = ${true} AND can_mention_group = (
          SELECT e.id FROM user_groups e WHERE e.realm_id = user_groups.realm_id AND e.is_system_group = ${true} AND e.name = 'role:everyone'
        )`.execute(db);
    },
  };
}
