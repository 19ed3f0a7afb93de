// Custom profile fields of an organization (unique label per organization) and users' values,
// one per user and field.
import type { Executor } from './db.js';

export interface ProfileField {
  id: number;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  order_index: number;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
  use_for_user_matching: boolean;
}

function fieldFromRow(r: Record<string, any>): ProfileField {
  return {
    ...(r as ProfileField),
    display_in_profile_summary: !!r.display_in_profile_summary,
    required: !!r.required,
    editable_by_user: !!r.editable_by_user,
    use_for_user_matching: !!r.use_for_user_matching,
  };
}

/** The organization's fields in their order (ties by id). */
export async function listProfileFields(db: Executor, realmId: number): Promise<ProfileField[]> {
  const rows = await db.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realmId).orderBy('order_index').orderBy('id').execute();
  return rows.map(fieldFromRow);
}

export async function getProfileField(db: Executor, realmId: number, fieldId: number): Promise<ProfileField | undefined> {
  const row = await db.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realmId).where('id', '=', fieldId).executeTakeFirst();
  return row ? fieldFromRow(row) : undefined;
}

/** How many of the organization's fields show in the profile summary (but `exceptId`). */
export async function summaryFieldCount(db: Executor, realmId: number, exceptId?: number): Promise<number> {
  let q = db.selectFrom('custom_profile_fields').select('id').where('realm_id', '=', realmId).where('display_in_profile_summary', '=', true);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.execute()).length;
}

/** Whether another field of the organization has exactly this label. */
export async function profileFieldNameTaken(db: Executor, realmId: number, name: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('custom_profile_fields').select('id').where('realm_id', '=', realmId).where('name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export type ProfileFieldSettings = Pick<ProfileField, 'name' | 'hint' | 'field_data' | 'display_in_profile_summary' | 'required' | 'editable_by_user' | 'use_for_user_matching'>;

/** Adds a field last: like Zulip, a new field's order is its id. A taken label is a UniqueConflict. */
export async function insertProfileField(db: Executor, realmId: number, fieldType: number, f: ProfileFieldSettings): Promise<number> {
  const row = await db
    .insertInto('custom_profile_fields')
    .values({ realm_id: realmId, field_type: fieldType, order_index: 0, ...f })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('custom_profile_fields').set({ order_index: row.id }).where('id', '=', row.id).execute();
  return row.id;
}

export async function updateProfileFieldRow(db: Executor, fieldId: number, f: ProfileFieldSettings): Promise<void> {
  await db.updateTable('custom_profile_fields').set(f).where('id', '=', fieldId).execute();
}

/** Removes a select field's values that name none of `keys`; answers whether any went. */
export async function deleteValuesNotIn(db: Executor, fieldId: number, keys: readonly string[]): Promise<boolean> {
  let q = db.deleteFrom('custom_profile_field_values').where('field_id', '=', fieldId);
  if (keys.length) q = q.where('value', 'not in', keys);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Deletes a field with every user's value for it. */
export async function deleteProfileFieldRow(db: Executor, fieldId: number): Promise<void> {
  await db.deleteFrom('custom_profile_field_values').where('field_id', '=', fieldId).execute();
  await db.deleteFrom('custom_profile_fields').where('id', '=', fieldId).execute();
}

/** Gives the fields the positions of `position` (field id to index). */
export async function setProfileFieldOrder(db: Executor, position: ReadonlyMap<number, number>): Promise<void> {
  for (const [id, index] of position) await db.updateTable('custom_profile_fields').set({ order_index: index }).where('id', '=', id).execute();
}

/** Every stored value of the organization, with its field's type. */
export async function realmProfileValues(db: Executor, realmId: number) {
  return db
    .selectFrom('custom_profile_field_values')
    .innerJoin('custom_profile_fields', 'custom_profile_fields.id', 'custom_profile_field_values.field_id')
    .select(['custom_profile_field_values.user_id as user_id', 'custom_profile_field_values.field_id as field_id', 'custom_profile_field_values.value as value', 'custom_profile_field_values.rendered_value as rendered_value', 'custom_profile_fields.field_type as field_type'])
    .where('custom_profile_field_values.realm_id', '=', realmId)
    .execute();
}

/** The user's values for these fields, by field id. */
export async function userProfileValues(db: Executor, userId: number, fieldIds: readonly number[]): Promise<Map<number, string>> {
  if (fieldIds.length === 0) return new Map();
  const rows = await db.selectFrom('custom_profile_field_values').select(['field_id', 'value']).where('user_id', '=', userId).where('field_id', 'in', fieldIds).execute();
  return new Map(rows.map((r) => [r.field_id, r.value]));
}

/** Sets (or with null, clears) the user's value for a field. */
export async function storeProfileValue(db: Executor, realmId: number, userId: number, fieldId: number, v: { value: string; rendered_value: string | null } | null, exists: boolean): Promise<void> {
  if (v === null) await db.deleteFrom('custom_profile_field_values').where('user_id', '=', userId).where('field_id', '=', fieldId).execute();
  else if (!exists) await db.insertInto('custom_profile_field_values').values({ realm_id: realmId, user_id: userId, field_id: fieldId, ...v }).execute();
  else await db.updateTable('custom_profile_field_values').set(v).where('user_id', '=', userId).where('field_id', '=', fieldId).execute();
}
