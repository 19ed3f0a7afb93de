// Deleting a whole topic (POST /streams/{id}/delete_topic): organization administrators only,
// newest messages first, in batches that each commit on their own, so a huge topic makes
// progress even when the request runs out of time (the client repeats it until `complete`).
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, isSubscribed, subscriberIds } from '../store/channels.js';
import { deleteMessagesByIds } from '../store/messages.js';
import { deleteTopicPolicies, topicPolicyRows, VISIBILITY } from '../store/user_topics.js';
import { newestTopicMessages, usersWithTopicMessages } from '../store/topics.js';
import { InvalidStreamId, AdminRequired } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { channelAccess, isRealmAdmin, messageActionAudience } from '../access/channel_access.js';
import { announceFirstMessageIds } from './first_message.js';

const BATCH = 1000;
/** After this long the request answers `complete: false` and leaves the rest for the next one. */
const TIME_BUDGET_MS = 50_000;

export async function deleteTopic(services: Services, user: User, realm: Realm, streamId: number, topic: string, o: { budgetMs?: number; batchSize?: number } = {}): Promise<{ complete: boolean }> {
  if (!isRealmAdmin(user)) throw new AdminRequired();
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  if (!stream || stream.is_archived) throw new InvalidStreamId();
  const subscribed = await isSubscribed(db, user.id, stream.id);
  const graph = await services.cache.groupGraph(realm.id);
  if (!channelAccess(graph, user, stream, subscribed).content) throw new InvalidStreamId();
  // Protected history: only the messages the administrator actually received.
  const onlyOwnRows = !stream.history_public_to_subscribers;
  const users = await services.cache.users(realm.id);
  const started = Date.now();
  const budgetMs = o.budgetMs ?? TIME_BUDGET_MS;
  for (;;) {
    const done = await services.database.transaction(async (tx, onCommit) => {
      const batch = await newestTopicMessages(tx, stream.id, topic, o.batchSize ?? BATCH, onlyOwnRows ? user.id : undefined);
      if (batch.length === 0) return true;
      const ids = batch.map((m) => m.id).sort((a, b) => a - b);
      const subscribers = await subscriberIds(tx, stream.id);
      const recipients = await deleteMessagesByIds(tx, realm.id, ids);
      // Zulip's do_delete_messages: those who can see the messages, and the administrator deleting them.
      const userIds = [...messageActionAudience([...recipients.values()].flat(), stream, subscribers, users).add(user.id)];
      await announceFirstMessageIds(services, tx, onCommit, { realmId: realm.id, users, graph }, [stream]);
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds,
        event: { type: 'delete_message', message_ids: ids, message_type: 'stream', stream_id: stream.id, topic: batch[0]!.topic },
      });
      return false;
    });
    if (done) break;
    if (Date.now() - started >= budgetMs) return { complete: false };
  }
  // The topic is gone: its visibility policies go too, except for users who can still read
  // messages left in it (protected history the administrator could not see).
  await services.database.transaction(async (tx, onCommit) => {
    const rows = await topicPolicyRows(tx, stream.id, topic);
    if (rows.length === 0) return;
    let affected = rows.map((r) => r.user_id);
    if (onlyOwnRows) {
      const keep = await usersWithTopicMessages(tx, affected, stream.id, topic);
      affected = affected.filter((id) => !keep.has(id));
    }
    if (affected.length === 0) return;
    await deleteTopicPolicies(tx, affected, stream.id, topic);
    const now = nowSeconds();
    for (const r of rows.filter((x) => affected.includes(x.user_id))) {
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: [r.user_id],
        event: { type: 'user_topic', stream_id: stream.id, topic_name: r.topic_name, last_updated: now, visibility_policy: VISIBILITY.inherit },
      });
    }
  });
  return { complete: true };
}
