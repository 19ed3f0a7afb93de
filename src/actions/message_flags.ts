// POST /messages/flags: the viewer's own flags on messages they can read.
import { sql } from 'kysely';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { FLAG_BITS, getMessages, insertUserMessages, updateFlag, type FlagName } from '../store/messages.js';
import { getStreamsByIds, subscriptionsOf } from '../store/channels.js';
import { BadRequest, InvalidMessage } from '../errors.js';
import { channelAccess } from './channel_access.js';
import { publishAfterCommit } from '../events/publish.js';

/** Flags a user may set or clear; the rest are the server's to decide. */
const EDITABLE: ReadonlySet<string> = new Set(['read', 'starred', 'collapsed']);
const NON_EDITABLE: ReadonlySet<string> = new Set([
  'mentioned', 'wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'group_mentioned', 'has_alert_word', 'historical',
]);

export function checkEditableFlag(flag: string): FlagName {
  if (EDITABLE.has(flag)) return flag as FlagName;
  if (NON_EDITABLE.has(flag)) throw new BadRequest(`Flag not editable: '${flag}'`);
  throw new BadRequest(`Invalid flag: '${flag}'`);
}

export async function updateMessageFlags(
  services: Services,
  user: User,
  realm: Realm,
  messageIds: number[],
  op: 'add' | 'remove',
  flag: FlagName,
): Promise<{ messages: number[]; ignored_because_not_subscribed_channels?: number[] }> {
  const db = services.database.db;
  const ids = [...new Set(messageIds)];
  const existing = ids.length
    ? await db.selectFrom('user_messages').select(['message_id']).where('user_id', '=', user.id).where('message_id', 'in', ids).execute()
    : [];
  const have = new Set(existing.map((r) => r.message_id));
  const missing = ids.filter((id) => !have.has(id));

  // Messages without a row of the user's: readable only through channel history; Zulip then
  // gives the user a row flagged historical so the flag has somewhere to live.
  const historical: number[] = [];
  if (missing.length) {
    const rows = await getMessages(db, realm.id, missing);
    if (rows.length !== missing.length) throw new InvalidMessage();
    const streams = new Map((await getStreamsByIds(db, realm.id, [...new Set(rows.map((m) => m.stream_id ?? -1))])).map((s) => [s.id, s]));
    const subs = await subscriptionsOf(db, user.id, [...streams.keys()]);
    const graph = await services.cache.groupGraph(realm.id);
    for (const m of rows) {
      const stream = m.stream_id === null ? undefined : streams.get(m.stream_id);
      const ok = stream && stream.history_public_to_subscribers && channelAccess(graph, user, stream, subs.get(stream.id)?.active ?? false).content;
      if (!ok) throw new InvalidMessage();
      historical.push(m.id);
    }
  }
  const bit = FLAG_BITS[flag];
  return services.database.transaction(async (tx, onCommit) => {
    if (historical.length && !(flag === 'read' && op === 'add')) {
      await insertUserMessages(tx, historical.map((message_id) => ({ user_id: user.id, message_id, flags: FLAG_BITS.read | FLAG_BITS.historical })));
    }
    const changed = await updateFlag(tx, user.id, ids, bit, op === 'add');
    const event: Record<string, unknown> = { type: 'update_message_flags', op, operation: op, flag, messages: changed, all: false };
    if (flag === 'read' && op === 'remove') event.message_details = await messageDetails(tx, user, realm, changed);
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [user.id], event });
    const out: { messages: number[]; ignored_because_not_subscribed_channels?: number[] } = { messages: changed };
    if (flag === 'read' && op === 'remove') out.ignored_because_not_subscribed_channels = [];
    return out;
  });
}

/** What a client needs to put messages back into its unread counts. */
async function messageDetails(tx: Parameters<typeof getMessages>[0], user: User, realm: Realm, ids: number[]) {
  const rows = await getMessages(tx, realm.id, ids);
  const groupIds = [...new Set(rows.filter((m) => m.dm_group_id !== null).map((m) => m.dm_group_id!))];
  const groups = groupIds.length
    ? await tx.selectFrom('direct_message_groups').select(['id', 'user_ids_key']).where('id', 'in', groupIds).execute()
    : [];
  const members = new Map(groups.map((g) => [g.id, g.user_ids_key.split(',').map(Number)]));
  const flags = ids.length
    ? new Map(
        (await tx.selectFrom('user_messages').select(['message_id', 'flags']).where('user_id', '=', user.id).where('message_id', 'in', ids).where(sql<boolean>`1 = 1`).execute()).map((r) => [r.message_id, r.flags]),
      )
    : new Map<number, number>();
  const details: Record<string, Record<string, unknown>> = {};
  for (const m of rows) {
    const f = flags.get(m.id) ?? 0;
    const mentioned = (f & (FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.group_mentioned)) !== 0;
    if (m.recipient_type === 'stream') {
      details[String(m.id)] = { type: 'stream', mentioned, stream_id: m.stream_id, topic: m.topic, unmuted_stream_msg: false };
    } else {
      const others = (members.get(m.dm_group_id!) ?? []).filter((id) => id !== user.id);
      details[String(m.id)] = { type: 'private', mentioned, user_ids: others };
    }
  }
  return details;
}
