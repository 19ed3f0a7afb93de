// GET /users/me/{stream_id}/topics: a channel's topics with their newest message, newest first.
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import { getStream, isSubscribed } from '../store/channels.js';
import { topicMaxIds, topicsOfMessages } from '../store/topics.js';
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
  const maxIds = await topicMaxIds(db, stream.id, stream.history_public_to_subscribers ? undefined : user.id);
  if (maxIds.length === 0) return [];
  // The name a topic goes by is its spelling in its newest message.
  const names = await topicsOfMessages(db, maxIds);
  return maxIds
    .sort((a, b) => b - a)
    .map((id) => {
      const name = names.get(id) ?? '';
      return { name: name === '' && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : name, max_id: id };
    });
}
