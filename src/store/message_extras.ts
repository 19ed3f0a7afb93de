// What a page of messages carries besides its rows: the reactions and the submessages (widgets).
// Both are read in one statement (a UNION ALL of the two tables): GET /messages shows both for
// every page, and on PostgreSQL each statement is a round trip.
import { sql } from 'kysely';
import type { Executor } from './db.js';
import type { ReactionRow } from './emoji.js';
import type { SubmessageRow } from './submessages.js';

export interface MessageExtras {
  /** By message id, in the order they were added. */
  reactions: Map<number, ReactionRow[]>;
  /** By message id, oldest first. */
  submessages: Map<number, SubmessageRow[]>;
}

interface ExtraRow {
  part: number;
  id: number;
  message_id: number;
  user_id: number;
  emoji_name: string | null;
  emoji_code: string | null;
  reaction_type: string | null;
  msg_type: string | null;
  content: string | null;
}

const push = <T>(map: Map<number, T[]>, key: number, value: T) => (map.get(key) ?? map.set(key, []).get(key)!).push(value);

/** The reactions and submessages of these messages, in one statement per 1000 messages. */
export async function messageExtras(db: Executor, messageIds: readonly number[]): Promise<MessageExtras> {
  const out: MessageExtras = { reactions: new Map(), submessages: new Map() };
  for (let i = 0; i < messageIds.length; i += 1000) {
    const ids = sql.join(messageIds.slice(i, i + 1000));
    // The nulls take their types from the other branch; `part` keeps each table's rows together, by id.
    const { rows } = await sql<ExtraRow>`select 0 as part, id, message_id, user_id, emoji_name, emoji_code, reaction_type, null as msg_type, null as content
        from reactions where message_id in (${ids})
      union all
      select 1 as part, id, message_id, sender_id, null, null, null, msg_type, content
        from submessages where message_id in (${ids})
      order by part, id`.execute(db);
    for (const r of rows) {
      const messageId = Number(r.message_id);
      if (Number(r.part) === 0) {
        push(out.reactions, messageId, { message_id: messageId, user_id: Number(r.user_id), emoji_name: r.emoji_name!, emoji_code: r.emoji_code!, reaction_type: r.reaction_type! });
      } else {
        push(out.submessages, messageId, { id: Number(r.id), message_id: messageId, sender_id: Number(r.user_id), msg_type: r.msg_type!, content: r.content! });
      }
    }
  }
  return out;
}
