// Invitations: email invitations and reusable invitation links, one table (see migrations/v4_admin.ts).
import type { Executor } from './db.js';

export const INVITE_STATUS = { pending: 0, used: 1, revoked: 2 } as const;

export interface Invite {
  id: number;
  realm_id: number;
  referrer_id: number;
  is_multiuse: boolean;
  email: string | null;
  invited_as: number;
  confirmation_key: string;
  created_at: number;
  expires_at: number | null;
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
  notify_referrer_on_join: boolean;
  welcome_message_custom_text: string | null;
  status: number;
}

function fromRow(r: Record<string, any>): Invite {
  return {
    id: Number(r.id),
    realm_id: Number(r.realm_id),
    referrer_id: Number(r.referrer_id),
    is_multiuse: !!r.is_multiuse,
    email: r.email ?? null,
    invited_as: Number(r.invited_as),
    confirmation_key: r.confirmation_key,
    created_at: Number(r.created_at),
    expires_at: r.expires_at === null || r.expires_at === undefined ? null : Number(r.expires_at),
    stream_ids: JSON.parse(r.stream_ids) as number[],
    group_ids: JSON.parse(r.group_ids) as number[],
    include_realm_default_subscriptions: !!r.include_realm_default_subscriptions,
    notify_referrer_on_join: !!r.notify_referrer_on_join,
    welcome_message_custom_text: r.welcome_message_custom_text ?? null,
    status: Number(r.status),
  };
}

export type NewInvite = Omit<Invite, 'id' | 'status'>;

export async function insertInvite(db: Executor, i: NewInvite): Promise<number> {
  const row = await db
    .insertInto('invites')
    .values({ ...i, stream_ids: JSON.stringify(i.stream_ids), group_ids: JSON.stringify(i.group_ids), status: INVITE_STATUS.pending })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function getInvite(db: Executor, realmId: number, id: number, multiuse: boolean): Promise<Invite | undefined> {
  const r = await db.selectFrom('invites').selectAll().where('id', '=', id).where('realm_id', '=', realmId).where('is_multiuse', '=', multiuse).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

export async function getInviteByKey(db: Executor, key: string): Promise<Invite | undefined> {
  const r = await db.selectFrom('invites').selectAll().where('confirmation_key', '=', key).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

/** Pending, unexpired invitations of an organization (or of one referrer in it). */
export async function pendingInvites(db: Executor, realmId: number, now: number, referrerId?: number): Promise<Invite[]> {
  let q = db
    .selectFrom('invites')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where('status', '=', INVITE_STATUS.pending)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  if (referrerId !== undefined) q = q.where('referrer_id', '=', referrerId);
  return (await q.orderBy('id').execute()).map(fromRow);
}

/** The parts of a reusable link its PATCH may change. */
export async function updateInviteTerms(
  db: Executor,
  id: number,
  t: { invited_as: number; stream_ids: number[]; group_ids: number[]; include_realm_default_subscriptions: boolean; welcome_message_custom_text: string | null },
): Promise<void> {
  await db
    .updateTable('invites')
    .set({ ...t, stream_ids: JSON.stringify(t.stream_ids), group_ids: JSON.stringify(t.group_ids) })
    .where('id', '=', id)
    .execute();
}

export async function setInviteStatus(db: Executor, id: number, status: number): Promise<void> {
  await db.updateTable('invites').set({ status }).where('id', '=', id).execute();
}

/** Other pending email invitations to an address become used when it joins. */
export async function markEmailInvitesUsed(db: Executor, realmId: number, email: string): Promise<void> {
  await db
    .updateTable('invites')
    .set({ status: INVITE_STATUS.used })
    .where('realm_id', '=', realmId)
    .where('is_multiuse', '=', false)
    .where('status', '=', INVITE_STATUS.pending)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute();
}

/** Whether the invitation is still pending. */
export async function invitePending(db: Executor, id: number): Promise<boolean> {
  const r = await db.selectFrom('invites').select('status').where('id', '=', id).executeTakeFirst();
  return !!r && Number(r.status) === INVITE_STATUS.pending;
}

/** Uses up a single-use invitation; false when another acceptance (or a revocation) came first. */
export async function claimInvite(db: Executor, id: number): Promise<boolean> {
  const res = await db.updateTable('invites').set({ status: INVITE_STATUS.used }).where('id', '=', id).where('status', '=', INVITE_STATUS.pending).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
