// GET /users/me/{stream_id}/topics: a channel's topics with their newest message, newest first.
import { sql } from 'kysely';
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import { getStream, isSubscribed } from '../store/channels.js';
import { InvalidStreamId } from '../errors.js';
import { channelAccess } from '../access/channel_access.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';

export async function channelTopics(services: Services, user: User, streamId: number, allowEmptyTopicName: boolean): Promise<Array<{ name: string; max_id: number }>> {
  const db = services.database.db;
  const stream = await getStream(db, user.realm_id, streamId);
  if (!stream) throw new InvalidStreamId();
  const graph = await services.cache.groupGraph(user.realm_id);
  const subscribed = await isSubscribed(db, user.id, stream.id);
  if (!channelAccess(graph, user, stream, subscribed).content) throw new InvalidStreamId();
  // With protected history, only the messages the user received count (their user_messages rows).
  const rows = stream.history_public_to_subscribers
    ? await db
        .selectFrom('messages')
        .select([sql<string>`lower(topic)`.as('k'), (eb) => eb.fn.max('id').as('max_id')])
        .where('stream_id', '=', stream.id)
        .groupBy(sql`lower(topic)`)
        .execute()
    : await db
        .selectFrom('user_messages as um')
        .innerJoin('messages', 'messages.id', 'um.message_id')
        .select([sql<string>`lower(messages.topic)`.as('k'), (eb) => eb.fn.max('messages.id').as('max_id')])
        .where('um.user_id', '=', user.id)
        .where('messages.stream_id', '=', stream.id)
        .groupBy(sql`lower(messages.topic)`)
        .execute();
  const maxIds = rows.map((r) => Number(r.max_id));
  if (maxIds.length === 0) return [];
  // The name a topic goes by is its spelling in its newest message.
  const names = new Map(
    (await db.selectFrom('messages').select(['id', 'topic']).where('id', 'in', maxIds).execute()).map((r) => [r.id, r.topic]),
  );
  return maxIds
    .sort((a, b) => b - a)
    .map((id) => {
      const name = names.get(id) ?? '';
      return { name: name === '' && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : name, max_id: id };
    });
}
