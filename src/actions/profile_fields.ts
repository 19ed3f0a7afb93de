// Custom profile fields: the organization's fields (administrators create, change, reorder and
// delete them; everyone hears `custom_profile_fields`), and each user's values (profile_data in
// user objects; changes announced as realm_user updates).
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { renderMarkdown } from '../markdown/render.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { audienceFor } from './users.js';
import { requireRealmAdmin } from '../access/roles.js';
import { onConflict } from '../store/conflicts.js';
import {
  deleteProfileFieldRow,
  deleteValuesNotIn,
  getProfileField,
  insertProfileField,
  listProfileFields,
  profileFieldNameTaken,
  realmProfileValues,
  setProfileFieldOrder,
  storeProfileValue,
  summaryFieldCount,
  updateProfileFieldRow,
  userProfileValues,
  type ProfileField,
} from '../store/profile_fields.js';

export { listProfileFields, type ProfileField };

export const FIELD_TYPE = { short_text: 1, long_text: 2, select: 3, date: 4, url: 5, user: 6, external_account: 7, pronouns: 8 } as const;

/** custom_profile_field_types of /register. */
export const FIELD_TYPES_FOR_CLIENTS = {
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Person picker' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
};

const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;
const SHORT_VALUE_MAX_LENGTH = 50;
const LONG_VALUE_MAX_LENGTH = 500;
const MAX_SUMMARY_FIELDS = 2;

/** The external accounts Zulip knows by name: their fields take the name and hint from here. */
const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; hint: string }> = {
  github: { name: 'GitHub', hint: 'Enter your GitHub username' },
  twitter: { name: 'Twitter', hint: 'Enter your Twitter username' },
};

/** A field as the API shows it; the two optional flags only when true. */
export function formatProfileField(f: ProfileField): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: f.id,
    name: f.name,
    type: f.field_type,
    hint: f.hint,
    field_data: f.field_data,
    order: f.order_index,
    required: f.required,
    editable_by_user: f.editable_by_user,
  };
  if (f.display_in_profile_summary) out.display_in_profile_summary = true;
  if (f.use_for_user_matching) out.use_for_user_matching = true;
  return out;
}

export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

function profileEntry(fieldType: number, value: string, rendered: string | null): { value: string; rendered_value?: string } {
  return isRenderable(fieldType) && rendered !== null ? { value, rendered_value: rendered } : { value };
}

/** Every user's values in the organization, by user id: one query. */
export async function profileDataByUser(db: Executor, realmId: number): Promise<Map<number, ProfileData>> {
  const out = new Map<number, ProfileData>();
  for (const r of await realmProfileValues(db, realmId)) {
    const data = out.get(r.user_id) ?? out.set(r.user_id, {}).get(r.user_id)!;
    data[String(r.field_id)] = profileEntry(r.field_type, r.value, r.rendered_value);
  }
  return out;
}

/**
 * Profile values are read with every user object (GET /users/me among them), so each process
 * keeps the organization's values beside its cached user list: a change to the values invalidates
 * the users cache (in every process), which drops this copy with the old list.
 */
const cachedProfiles = new WeakMap<object, Promise<Map<number, ProfileData>>>();

export async function realmProfileData(services: Services, realmId: number): Promise<Map<number, ProfileData>> {
  const users = await services.cache.users(realmId);
  let data = cachedProfiles.get(users);
  if (!data) {
    data = profileDataByUser(services.database.db, realmId);
    cachedProfiles.set(users, data);
    data.catch(() => cachedProfiles.delete(users));
  }
  return data;
}

function isRenderable(fieldType: number): boolean {
  return fieldType === FIELD_TYPE.short_text || fieldType === FIELD_TYPE.long_text;
}

function codePoints(s: string): number {
  return [...s].length;
}

// ---- the organization's fields ----

export interface FieldSpec {
  name?: string;
  hint?: string;
  fieldType?: number;
  /** The parsed field_data object (choices, or an external account's subtype). */
  fieldData?: Record<string, unknown>;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
  useForUserMatching?: boolean;
}

function checkNameAndHint(name: string, hint: string): void {
  if (!name.trim()) throw new BadRequest('Label cannot be blank.');
  if (codePoints(hint) > HINT_MAX_LENGTH) throw new BadRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
  if (codePoints(name) > NAME_MAX_LENGTH) throw new BadRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
}

/**
 * Choices of a dropdown: {key: {text, order}}, at least one, no two with the same text. Each
 * choice is checked as Zulip's validate_select_field_data does, with check_dict_only under the
 * name "field_data" (so its texts name field_data, not the choice's key), duplicates last.
 */
function checkSelectData(data: Record<string, unknown>): void {
  const entries = Object.entries(data);
  if (entries.length < 1) throw new BadRequest('Field must have at least one choice.');
  const texts = new Set<string>();
  for (const [key, choice] of entries) {
    if (!key.trim()) throw new BadRequest("'value' cannot be blank.");
    if (typeof choice !== 'object' || choice === null || Array.isArray(choice)) throw new BadRequest('field_data is not a dict');
    const c = choice as Record<string, unknown>;
    for (const k of ['text', 'order']) {
      if (!(k in c)) throw new BadRequest(`${k} key is missing from field_data`);
      const v = c[k];
      if (typeof v !== 'string') throw new BadRequest(`field_data["${k}"] is not a string`);
      if (!v.trim()) throw new BadRequest(`field_data["${k}"] cannot be blank.`);
    }
    const extra = Object.keys(c).filter((k) => k !== 'text' && k !== 'order');
    if (extra.length) throw new BadRequest(`Unexpected arguments: ${extra.join(', ')}`);
    texts.add(c.text as string);
  }
  if (texts.size !== entries.length) throw new BadRequest('Field must not have duplicate choices.');
}

/** An external account field: a known subtype, or "custom" with a URL pattern holding %(username)s. */
function checkExternalAccountData(data: Record<string, unknown>): void {
  const subtype = data.subtype;
  if (typeof subtype !== 'string') throw new BadRequest('field_data["subtype"] is not a string');
  if (subtype === 'custom') {
    const pattern = data.url_pattern;
    if (typeof pattern !== 'string' || !pattern) throw new BadRequest('Custom external account must define URL pattern');
    const parts = pattern.split('%(username)s');
    let ok = parts.length === 2 && !/%\(/.test(parts.join(''));
    try {
      const u = new URL(pattern.replace('%(username)s', 'username'));
      ok &&= u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      ok = false;
    }
    if (!ok) throw new BadRequest('Malformed URL pattern.');
  } else if (!(subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
    throw new BadRequest('Invalid external account type');
  }
}

function isDefaultExternal(fieldType: number, data: Record<string, unknown>): boolean {
  return fieldType === FIELD_TYPE.external_account && data.subtype !== 'custom';
}

function checkFieldSpec(name: string, hint: string, fieldType: number, data: Record<string, unknown>, summary: boolean, matching: boolean): void {
  if (fieldType === FIELD_TYPE.select) checkSelectData(data);
  else if (fieldType === FIELD_TYPE.external_account) checkExternalAccountData(data);
  if (!isDefaultExternal(fieldType, data)) checkNameAndHint(name, hint);
  if (!(Object.values(FIELD_TYPE) as number[]).includes(fieldType)) throw new BadRequest('Invalid field type.');
  if (summary && (fieldType === FIELD_TYPE.long_text || fieldType === FIELD_TYPE.user)) throw new BadRequest('Field type not supported for display in profile summary.');
  if (matching && fieldType !== FIELD_TYPE.short_text && fieldType !== FIELD_TYPE.external_account) {
    throw new BadRequest('Field type not supported for user matching.');
  }
}

/** field_data as stored: '' for types without configuration, else the JSON text. */
function storedFieldData(fieldType: number, data: Record<string, unknown>): string {
  if (fieldType !== FIELD_TYPE.select && fieldType !== FIELD_TYPE.external_account) return Object.keys(data).length ? JSON.stringify(data) : '';
  return JSON.stringify(data);
}

/** After any change to the organization's fields: the whole list, to every active user. */
async function announceFields(services: Services, tx: Executor, onCommit: OnCommit, realmId: number): Promise<void> {
  const users = await services.cache.users(realmId);
  const everyone = [...users.values()].filter((u) => u.is_active).map((u) => u.id);
  const fields = (await listProfileFields(tx, realmId)).map(formatProfileField);
  publishAfterCommit(services, onCommit, { realmId, userIds: everyone, event: { type: 'custom_profile_fields', fields } });
}

const SUMMARY_LIMIT_MESSAGE = `Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`;

/** POST /realm/profile_fields. */
export async function createProfileField(services: Services, caller: User, realm: Realm, spec: FieldSpec): Promise<number> {
  requireRealmAdmin(caller);
  const fieldType = spec.fieldType!;
  const data = spec.fieldData ?? {};
  let name = (spec.name ?? '').trim();
  let hint = spec.hint ?? '';
  const summary = spec.displayInProfileSummary ?? false;
  const matching = spec.useForUserMatching ?? false;
  // create_realm_custom_profile_field looks at the summary limit before anything else (and the
  // transaction below looks again).
  if (summary && (await summaryFieldCount(services.database.db, realm.id)) >= MAX_SUMMARY_FIELDS) throw new BadRequest(SUMMARY_LIMIT_MESSAGE);
  checkFieldSpec(name, hint, fieldType, data, summary, matching);
  if (isDefaultExternal(fieldType, data)) {
    const known = DEFAULT_EXTERNAL_ACCOUNTS[data.subtype as string]!;
    name = known.name;
    hint = known.hint;
  }
  return onConflict(services.database.transaction(async (tx, onCommit) => {
    if (summary && (await summaryFieldCount(tx, realm.id)) >= MAX_SUMMARY_FIELDS) throw new BadRequest(SUMMARY_LIMIT_MESSAGE);
    if (await profileFieldNameTaken(tx, realm.id, name)) throw new BadRequest('A field with that label already exists.');
    const id = await insertProfileField(tx, realm.id, fieldType, {
      name,
      hint,
      field_data: storedFieldData(fieldType, data),
      display_in_profile_summary: summary,
      required: spec.required ?? false,
      editable_by_user: spec.editableByUser ?? true,
      use_for_user_matching: matching,
    });
    await announceFields(services, tx, onCommit, realm.id);
    return id;
  }), () => new BadRequest('A field with that label already exists.'));
}

async function getField(db: Executor, realmId: number, fieldId: number): Promise<ProfileField> {
  const field = await getProfileField(db, realmId, fieldId);
  if (!field) throw new BadRequest(`Field id ${fieldId} not found.`);
  return field;
}

/** PATCH /realm/profile_fields/{field_id}: the type never changes; the rest is checked as on creation. */
export async function updateProfileField(services: Services, caller: User, realm: Realm, fieldId: number, spec: FieldSpec): Promise<void> {
  requireRealmAdmin(caller);
  const field = await getField(services.database.db, realm.id, fieldId);
  const currentData = field.field_data ? (JSON.parse(field.field_data) as Record<string, unknown>) : {};
  const name = spec.name !== undefined ? spec.name.trim() : field.name;
  const hint = spec.hint ?? field.hint;
  const data = spec.fieldData ?? currentData;
  const summary = spec.displayInProfileSummary ?? field.display_in_profile_summary;
  const matching = spec.useForUserMatching ?? field.use_for_user_matching;
  // update_realm_custom_profile_field: the summary limit first, then the rest.
  if (spec.displayInProfileSummary && (await summaryFieldCount(services.database.db, realm.id, field.id)) >= MAX_SUMMARY_FIELDS) throw new BadRequest(SUMMARY_LIMIT_MESSAGE);
  if (isDefaultExternal(field.field_type, currentData)) {
    // Zulip lets only the flags of a known external account change.
    const same = name === field.name && hint === field.hint && JSON.stringify(data) === JSON.stringify(currentData);
    if (!same) throw new BadRequest('Default custom field cannot be updated.');
  }
  checkFieldSpec(name, hint, field.field_type, data, summary, matching);
  await onConflict(services.database.transaction(async (tx, onCommit) => {
    if (spec.displayInProfileSummary && (await summaryFieldCount(tx, realm.id, field.id)) >= MAX_SUMMARY_FIELDS) throw new BadRequest(SUMMARY_LIMIT_MESSAGE);
    if (name !== field.name && (await profileFieldNameTaken(tx, realm.id, name, field.id))) throw new BadRequest('A field with that label already exists.');
    await updateProfileFieldRow(tx, field.id, {
      name,
      hint,
      field_data: spec.fieldData !== undefined ? storedFieldData(field.field_type, data) : field.field_data,
      display_in_profile_summary: summary,
      required: spec.required ?? field.required,
      editable_by_user: spec.editableByUser ?? field.editable_by_user,
      use_for_user_matching: matching,
    });
    // Like Zulip, values naming a choice that is gone are removed with it.
    if (field.field_type === FIELD_TYPE.select && spec.fieldData !== undefined) {
      const keys = Object.keys(data);
      if (await deleteValuesNotIn(tx, field.id, keys)) onCommit(() => services.cache.invalidateUsers(realm.id));
    }
    await announceFields(services, tx, onCommit, realm.id);
  }), () => new BadRequest('A field with that label already exists.'));
}

/** DELETE /realm/profile_fields/{field_id}: the field and every user's value for it. */
export async function deleteProfileField(services: Services, caller: User, realm: Realm, fieldId: number): Promise<void> {
  requireRealmAdmin(caller);
  const field = await getField(services.database.db, realm.id, fieldId);
  await services.database.transaction(async (tx, onCommit) => {
    await deleteProfileFieldRow(tx, field.id);
    await announceFields(services, tx, onCommit, realm.id);
    onCommit(() => services.cache.invalidateUsers(realm.id));
  });
}

/**
 * PATCH /realm/profile_fields, as Zulip's try_reorder_realm_custom_profile_fields: `order` must
 * list every field of the organization; each takes the place of its last mention, and ids that
 * are no field of the organization are ignored.
 */
export async function reorderProfileFields(services: Services, caller: User, realm: Realm, order: number[]): Promise<void> {
  requireRealmAdmin(caller);
  await services.database.transaction(async (tx, onCommit) => {
    const fields = await listProfileFields(tx, realm.id);
    const mentioned = new Map(order.map((id, i) => [id, i]));
    if (fields.some((f) => !mentioned.has(f.id))) throw new BadRequest('Invalid order mapping.');
    await setProfileFieldOrder(tx, new Map(fields.map((f) => [f.id, mentioned.get(f.id)!])));
    await announceFields(services, tx, onCommit, realm.id);
  });
}

// ---- users' values ----

export interface ProfileDataUpdate {
  id: number;
  value: unknown;
}

const isDate = (v: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
};

const isUrl = (v: string) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
};

/** A value checked against its field's type, as the text that is stored. */
function checkedValue(field: ProfileField, value: unknown, realmUsers: ReadonlyMap<number, User>): string {
  const name = field.name;
  switch (field.field_type) {
    case FIELD_TYPE.user: {
      // Zulip's check_valid_user_ids: the list is named "User IDs" whatever the field's name, and
      // every id that is no user of the organization is listed before any other complaint.
      if (!Array.isArray(value)) throw new BadRequest('User IDs is not a list');
      for (const [i, id] of value.entries()) {
        if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new BadRequest(`User IDs[${i}] is not an integer`);
      }
      const ids = value as number[];
      const unknown = ids.filter((id) => !realmUsers.has(id));
      if (unknown.length) throw new BadRequest(`Invalid user IDs: ${unknown.join(', ')}`);
      for (const id of ids) {
        const person = realmUsers.get(id)!;
        if (!person.is_active) throw new BadRequest(`User with ID ${id} is deactivated`);
        if (person.is_bot) throw new BadRequest(`User with ID ${id} is a bot`);
      }
      return JSON.stringify([...new Set(ids)]);
    }
    default: {
      if (typeof value !== 'string') throw new BadRequest(`${name} is not a string`);
      if (field.field_type === FIELD_TYPE.long_text) {
        if (codePoints(value) > LONG_VALUE_MAX_LENGTH) throw new BadRequest(`${name} is too long (limit: ${LONG_VALUE_MAX_LENGTH} characters)`);
      } else if (field.field_type === FIELD_TYPE.date) {
        if (!isDate(value)) throw new BadRequest(`${name} is not a date`);
      } else if (field.field_type === FIELD_TYPE.url) {
        if (!isUrl(value)) throw new BadRequest(`${name} is not a URL`);
      } else if (field.field_type === FIELD_TYPE.select) {
        const choices = JSON.parse(field.field_data || '{}') as Record<string, unknown>;
        if (!Object.prototype.hasOwnProperty.call(choices, value)) throw new BadRequest(`'${value}' is not a valid choice for '${name}'.`);
      } else if (codePoints(value) > SHORT_VALUE_MAX_LENGTH) {
        throw new BadRequest(`${name} is too long (limit: ${SHORT_VALUE_MAX_LENGTH} characters)`);
      }
      return value;
    }
  }
}

const NOT_EDITABLE = 'You are not allowed to change this field. Contact an administrator to update it.';

/**
 * Sets the target's values (PATCH /users/me/profile_data) or clears them (DELETE). Every entry is
 * checked before anything is written; each changed value is one realm_user update event to those
 * who may see the target.
 */
export async function updateProfileData(services: Services, caller: User, realm: Realm, target: User, updates: ProfileDataUpdate[], clear: number[] = []): Promise<void> {
  const write = await prepareProfileData(services, caller, realm, target, updates, clear);
  if (write) await services.database.transaction(write);
}

/**
 * Every check of a profile data change; the returned function writes it inside a transaction.
 * `emptyClears`: an administrator's PATCH /users/{user_id}, where Zulip's update_user_backend
 * removes a field given an empty value (check_remove_custom_profile_field_value). Its
 * update_user_custom_profile_data (PATCH /users/me/profile_data) has no such rule: "" is checked
 * as any value of the field's type, and a text field stores it.
 */
export async function prepareProfileData(
  services: Services,
  caller: User,
  realm: Realm,
  target: User,
  updates: ProfileDataUpdate[],
  clear: number[] = [],
  emptyClears = false,
): Promise<((tx: Executor, onCommit: OnCommit) => Promise<void>) | undefined> {
  if (target.is_bot) throw new BadRequest('This endpoint does not accept bot requests.');
  const fields = new Map((await listProfileFields(services.database.db, realm.id)).map((f) => [f.id, f]));
  const users = await services.cache.users(realm.id);
  const admin = isRealmAdmin(caller);
  const writes = new Map<number, string | null>();
  const checkField = (id: number): ProfileField => {
    const f = fields.get(id);
    if (!f) throw new BadRequest(`Field id ${id} not found.`);
    if (!admin && !f.editable_by_user) throw new BadRequest(NOT_EDITABLE);
    return f;
  };
  for (const id of clear) {
    checkField(id);
    writes.set(id, null);
  }
  for (const u of updates) {
    const f = checkField(u.id);
    const empty = u.value === null || u.value === '' || (Array.isArray(u.value) && u.value.length === 0);
    writes.set(u.id, emptyClears && empty ? null : checkedValue(f, u.value, users));
  }
  if (!writes.size) return undefined;
  const audience = (await audienceFor(services, realm, target)).map((u) => u.id);
  const renderCtx = { users: [...users.values()].filter((u) => u.is_active), linkifiers: await services.cache.linkifiers(realm.id) };
  return async (tx, onCommit) => {
    let changed = false;
    const ids = [...writes.keys()];
    const current = await userProfileValues(tx, target.id, ids);
    for (const [fieldId, value] of writes) {
      const field = fields.get(fieldId)!;
      const before = current.get(fieldId);
      const rendered = value !== null && isRenderable(field.field_type) ? renderMarkdown(value, renderCtx).html : null;
      if (value === null) {
        if (before === undefined) continue;
        await storeProfileValue(tx, realm.id, target.id, fieldId, null, true);
      } else {
        if (before === value) continue;
        await storeProfileValue(tx, realm.id, target.id, fieldId, { value, rendered_value: rendered }, before !== undefined);
      }
      // Zulip's notify_user_update_custom_profile_data leaves out an empty rendered_value.
      const entry: Record<string, unknown> = { id: fieldId, value };
      if (rendered) entry.rendered_value = rendered;
      publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audience, event: { type: 'realm_user', op: 'update', person: { user_id: target.id, custom_profile_field: entry } } });
      changed = true;
    }
    if (changed) onCommit(() => services.cache.invalidateUsers(realm.id));
  };
}
