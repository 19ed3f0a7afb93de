// Users' alert words: unique per user ignoring case (a unique index on user and lower(word)).
import { sql } from 'kysely';
import type { Executor } from './db.js';

/** The user's words in the order they were added. */
export async function alertWordsOf(db: Executor, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('alert_words').select('word').where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((r) => r.word);
}

/** Recipients' alert words, for flagging a message being sent (one query). */
export async function alertWordsFor(db: Executor, userIds: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (userIds.length === 0) return out;
  // Written as SQL: every message runs it, with one parameter per recipient.
  const { rows } = await sql<{ user_id: number; word: string }>`select user_id, word from alert_words where user_id in (${sql.join(userIds)})`.execute(db);
  for (const r of rows) (out.get(r.user_id) ?? out.set(r.user_id, []).get(r.user_id)!).push(r.word);
  return out;
}

/**
 * Every alert word of the organization's users, by user (Zulip's alert_words_in_realm): what the
 * cache keeps for matching each message sent there. Deactivated users' words are kept too (they
 * receive nothing, so nothing matches for them), which spares a reload at every deactivation.
 */
export async function realmAlertWords(db: Executor, realmId: number): Promise<Map<number, string[]>> {
  const rows = await realmAlertWordsQuery(db, realmId).execute();
  const out = new Map<number, string[]>();
  for (const r of rows) (out.get(r.user_id) ?? out.set(r.user_id, []).get(r.user_id)!).push(r.word);
  return out;
}

/** The statement realmAlertWords runs (exported so a test can ask the planner about it; migration 0096 indexes it). */
export function realmAlertWordsQuery(db: Executor, realmId: number) {
  return db.selectFrom('alert_words').select(['user_id', 'word']).where('realm_id', '=', realmId).orderBy('id');
}

/** Adds words; one the user already has (in any case) fails with a UniqueConflict. */
export async function insertAlertWords(db: Executor, realmId: number, userId: number, words: readonly string[]): Promise<void> {
  if (words.length) await db.insertInto('alert_words').values(words.map((word) => ({ realm_id: realmId, user_id: userId, word }))).execute();
}

/** Removes the user's words whose lower-case form is one of `lowerWords`. */
export async function deleteAlertWords(db: Executor, userId: number, lowerWords: readonly string[]): Promise<void> {
  if (lowerWords.length) await db.deleteFrom('alert_words').where('user_id', '=', userId).where(sql<string>`lower(word)`, 'in', lowerWords).execute();
}
