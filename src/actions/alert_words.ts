// Alert words and topic visibility policies: a user's own preferences about what to notice.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, isSubscribed } from '../store/channels.js';
import { mutedTopicsOf, setTopicPolicy, topicPolicies, VISIBILITY } from '../store/user_topics.js';
import { BadRequest, InvalidStreamId } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { channelAccess } from '../access/channel_access.js';
import { normalizeTopic } from '../lib/message_text.js';
import { retryOnConflict } from '../store/conflicts.js';
import { alertWordsOf, deleteAlertWords, insertAlertWords } from '../store/alert_words.js';

export const MAX_ALERT_WORD_LENGTH = 100;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the text contains the word on its own (not inside a longer word), ignoring case. */
export function containsAlertWord(text: string, word: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRe(word)}(?![\\p{L}\\p{N}_])`, 'iu').test(text);
}

/**
 * Zulip's add_alert_words: each word as sent is at most MAX_ALERT_WORD_LENGTH characters (code
 * points, before trimming); then clean_alert_words trims and drops blanks, and
 * add_user_alert_words keeps the first spelling of each word, ignoring case.
 */
function cleanWords(words: string[]): string[] {
  for (const [i, w] of words.entries()) {
    if ([...w].length > MAX_ALERT_WORD_LENGTH) throw new BadRequest(`alert_words[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`);
  }
  const out = new Map<string, string>();
  for (const word of words.map((w) => w.trim())) {
    if (word && !out.has(word.toLowerCase())) out.set(word.toLowerCase(), word);
  }
  return [...out.values()];
}

export async function addAlertWords(services: Services, user: User, words: string[]): Promise<string[]> {
  const clean = cleanWords(words);
  return retryOnConflict(() => services.database.transaction(async (tx, onCommit) => {
    const existing = new Set((await alertWordsOf(tx, user.id)).map((w) => w.toLowerCase()));
    const fresh = clean.filter((w) => !existing.has(w.toLowerCase()));
    await insertAlertWords(tx, user.realm_id, user.id, fresh);
    const all = await alertWordsOf(tx, user.id);
    // The organization's cached words (what sends match against) change with this commit.
    onCommit(() => services.cache.invalidateAlertWords(user.realm_id));
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'alert_words', alert_words: all } });
    return all;
  }));
}

export async function removeAlertWords(services: Services, user: User, words: string[]): Promise<string[]> {
  // remove_user_alert_words matches each word as sent, ignoring case only (no trimming).
  const lower = words.map((w) => w.toLowerCase()).filter(Boolean);
  return services.database.transaction(async (tx, onCommit) => {
    await deleteAlertWords(tx, user.id, lower);
    const all = await alertWordsOf(tx, user.id);
    // The organization's cached words (what sends match against) change with this commit.
    onCommit(() => services.cache.invalidateAlertWords(user.realm_id));
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'alert_words', alert_words: all } });
    return all;
  });
}

/** POST /user_topics: mute, unmute, follow or reset a topic of a channel one can read. */
export async function setUserTopic(services: Services, user: User, realm: Realm, streamId: number, rawTopic: string, policy: number): Promise<void> {
  if (!Object.values(VISIBILITY).includes(policy as never)) throw new BadRequest('Invalid visibility_policy');
  const stream = await getStream(services.database.db, realm.id, streamId);
  const graph = await services.cache.groupGraph(realm.id);
  if (!stream || !channelAccess(graph, user, stream, await isSubscribed(services.database.db, user.id, stream.id)).content) throw new InvalidStreamId();
  const topic = normalizeTopic(rawTopic);
  const now = nowSeconds();
  await services.database.transaction(async (tx, onCommit) => {
    // do_set_user_topic_visibility_policy: setting the policy it already has changes nothing and sends nothing.
    const current = (await topicPolicies(tx, [user.id], stream.id, topic)).get(user.id) ?? VISIBILITY.inherit;
    if (current === policy) return;
    await setTopicPolicy(tx, user.id, stream.id, topic, policy, now);
    // First the legacy form, for clients that did not ask for user_topic events (the queues drop it
    // for those that did), then the user_topic event, as Zulip sends them.
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [user.id], event: { type: 'muted_topics', muted_topics: await mutedTopicsOf(tx, user.id) } });
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: [user.id],
      event: { type: 'user_topic', stream_id: stream.id, topic_name: topic, last_updated: now, visibility_policy: policy },
    });
  });
}
