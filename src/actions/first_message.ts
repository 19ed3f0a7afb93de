// stream update events for first_message_id, which changes when a channel's oldest message is
// deleted or moved away, or an older message is moved in (Zulip sends these since feature level 256).
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { firstMessageIds, subscriberIds, type Stream } from '../store/channels.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { streamUpdateEvent } from '../events/types.js';
import { usersWhoCanSee } from '../shapes/channels.js';

/** Reads the channels' first_message_id now (in the transaction) and announces those that differ from `before`. */
export async function announceFirstMessageIds(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  ctx: { realmId: number; users: Map<number, User>; graph: GroupGraph },
  streams: Stream[],
): Promise<void> {
  if (streams.length === 0) return;
  const now = await firstMessageIds(tx, streams.map((s) => s.id));
  for (const s of streams) {
    const value = now.get(s.id) ?? null;
    if (value === s.first_message_id) continue;
    const subs = new Set(await subscriberIds(tx, s.id));
    publishAfterCommit(services, onCommit, {
      realmId: ctx.realmId,
      userIds: usersWhoCanSee(ctx.graph, ctx.users.values(), s, subs),
      event: streamUpdateEvent(s, 'first_message_id', value),
    });
    s.first_message_id = value;
  }
}
