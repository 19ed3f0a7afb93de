// Message retention: messages older than their channel's retention period (or the organization's,
// when the channel uses the default) are deleted by a periodic job.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { listRealms } from '../store/realms.js';
import { deleteMessagesByIds, expiredChannelMessages } from '../store/messages.js';
import { channelRetentionDays } from '../store/channels.js';
import { publishAfterCommit } from '../events/publish.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';
import { deleteMessageEvent } from '../events/types.js';

const DAY = 86400;
const BATCH = 1000;

/** One pass over every organization; returns how many messages were deleted. */
export async function runRetention(services: Services): Promise<number> {
  const db = services.database.db;
  let deleted = 0;
  for (const realm of await listRealms(db)) {
    const streams = await channelRetentionDays(db, realm.id);
    for (const s of streams) {
      // null: the organization's policy; -1: keep forever.
      const days = s.message_retention_days === null ? realm.settings.message_retention_days : s.message_retention_days;
      if (!days || days < 0) continue;
      const cutoff = nowSeconds() - days * DAY;
      for (;;) {
        const expired = await expiredChannelMessages(db, s.id, cutoff, BATCH);
        if (expired.length === 0) break;
        await services.database.transaction(async (tx, onCommit) => {
          const recipients = await deleteMessagesByIds(tx, realm.id, expired.map((m) => m.id));
          for (const m of expired) publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: recipients.get(m.id) ?? [], event: deleteMessageEvent(m) });
        });
        deleted += expired.length;
        if (expired.length < BATCH) break;
      }
    }
  }
  return deleted;
}

/** Runs the retention pass every intervalMs (an hour by default). */
export function startRetention(services: Services, intervalMs = 3_600_000): Periodic {
  return runPeriodically('message retention', intervalMs, () => runRetention(services));
}
