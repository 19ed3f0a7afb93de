// Who a message reaches and flags beyond its recipients, worked out alike for a person's message
// (messages.ts prepareMessage) and the Notification Bot's (notification_bot.ts): the users and
// group members it mentions, the mentioned generic bots it therefore reaches, and the recipients
// whose alert words it contains. Each caller checks its own permissions first.
import type { Executor } from '../store/db.js';
import { BOT_TYPE, type User } from '../store/users.js';
import { groupMembersRecursive, type GroupGraph } from '../store/cache.js';
import type { Rendered } from '../markdown/render.js';
import { alertWordsFor } from '../store/alert_words.js';
import { containsAlertWord } from './alert_words.js';

/** The users a rendered message mentions: by name, and every member (through subgroups) of each group mentioned. */
export function mentionedUserIds(graph: GroupGraph, rendered: Rendered): Set<number> {
  const out = new Set(rendered.mentionedUserIds);
  for (const groupId of rendered.mentionedGroupIds) for (const id of groupMembersRecursive(graph, groupId)) out.add(id);
  return out;
}

/** Generic bots that are mentioned receive the message, as in Zulip: adds the active ones to `everyone`. */
export function addMentionedGenericBots(everyone: Set<number>, mentioned: Iterable<number>, users: Map<number, User>): void {
  for (const id of mentioned) {
    const u = users.get(id);
    if (u?.is_active && u.is_bot && u.bot_type === BOT_TYPE.generic) everyone.add(id);
  }
}

/** The recipients whose alert words the content contains (has_alert_word), read in `db`; never the sender, for their own message. */
export async function alertedUserIds(db: Executor, content: string, recipients: Iterable<number>, senderId: number): Promise<Set<number>> {
  return alertedIn(await recipientsAlertWords(db, recipients, senderId), content);
}

/** The alert words of the recipients but the sender (one query), for matching several messages' contents. */
export function recipientsAlertWords(db: Executor, recipients: Iterable<number>, senderId: number): Promise<Map<number, string[]>> {
  return alertWordsFor(db, [...recipients].filter((id) => id !== senderId));
}

/** The users among `words`' whose alert words the content contains. */
export function alertedIn(words: ReadonlyMap<number, readonly string[]>, content: string): Set<number> {
  const alerted = new Set<number>();
  for (const [userId, list] of words) {
    if (list.some((w) => containsAlertWord(content, w))) alerted.add(userId);
  }
  return alerted;
}

/**
 * The recipients but the sender whose alert words the content contains, from the organization's
 * words (the cache's alert_words_in_realm), walking whichever of the two is smaller.
 */
export function alertedRecipients(realmWords: ReadonlyMap<number, readonly string[]>, content: string, recipients: ReadonlySet<number>, senderId: number): Set<number> {
  const alerted = new Set<number>();
  const matches = (userId: number, list: readonly string[] | undefined) => userId !== senderId && list !== undefined && list.some((w) => containsAlertWord(content, w));
  if (realmWords.size <= recipients.size) {
    for (const [userId, list] of realmWords) if (recipients.has(userId) && matches(userId, list)) alerted.add(userId);
  } else {
    for (const userId of recipients) if (matches(userId, realmWords.get(userId))) alerted.add(userId);
  }
  return alerted;
}
