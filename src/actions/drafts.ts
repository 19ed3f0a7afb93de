// Drafts and saved snippets: validated, written in one transaction, mirrored to the user's other
// clients through drafts / saved_snippets events.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import { deleteDraft, deleteSnippet, getDraft, getSnippet, insertDrafts, insertSnippet, updateDraft, updateSnippet, type NewDraft } from '../store/drafts.js';
import { getStream, isSubscribed } from '../store/channels.js';
import { BadRequest, InvalidStreamId, ResourceNotFound } from '../errors.js';
import { channelAccess } from '../access/channel_access.js';
import { publishAfterCommit } from '../events/publish.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { check, checkLength } from '../lib/params.js';
import { MAX_MESSAGE_LENGTH, normalizeContent, truncateTopic } from '../lib/message_text.js';

export const MAX_SNIPPET_TITLE_LENGTH = 60;

export function requireDraftSync(user: User): void {
  if (!userSettingsOf(user.settings).enable_drafts_synchronization) throw new BadRequest('User has disabled synchronizing drafts.');
}

const DRAFT_KEYS: ReadonlySet<string> = new Set(['type', 'to', 'topic', 'content', 'timestamp']);

/**
 * Shape check of one draft object as a client sends it, as Zulip's DraftData model: `type` one of
 * three literals, `content` not blank (and stripped), `timestamp` any number, no other keys.
 */
export function parseDraft(v: unknown, name: string): { type: string; to: number[]; topic: string; content: string; timestamp?: number } {
  const o = check.object(v, name);
  for (const key of ['type', 'to', 'topic', 'content']) if (!(key in o)) throw new BadRequest(`${name}["${key}"] is missing`);
  const type = o.type;
  if (type !== '' && type !== 'stream' && type !== 'private') throw new BadRequest(`Invalid ${name}["type"]`);
  const to = check.intList(o.to, `${name}["to"]`);
  const topic = check.str(o.topic, `${name}["topic"]`);
  // RequiredStringConstraint: stripped, and blank is refused.
  const content = check.str(o.content, `${name}["content"]`).trim();
  if (!content) throw new BadRequest(`${name}["content"] cannot be blank`);
  let timestamp: number | undefined;
  if (o.timestamp !== undefined && o.timestamp !== null) {
    if (typeof o.timestamp !== 'number' || !Number.isFinite(o.timestamp)) throw new BadRequest(`${name}["timestamp"] is not a number`);
    timestamp = o.timestamp;
  }
  for (const key of Object.keys(o)) if (!DRAFT_KEYS.has(key)) throw new BadRequest(`Argument "${key}" at ${name}["${key}"] is unexpected`);
  return timestamp === undefined ? { type, to, topic, content } : { type, to, topic, content, timestamp };
}

/**
 * A direct message draft's `to` as Zulip's Draft.to_dict reads it back from the recipient: the
 * other participants in id order, or the user alone for a draft to oneself.
 */
function draftRecipients(user: User, to: number[]): number[] {
  const others = [...new Set(to)].filter((id) => id !== user.id).sort((a, b) => a - b);
  return others.length ? others : [user.id];
}

/** The rules of Zulip's further_validated_draft_dict; returns the draft to store. */
async function validateDraft(services: Services, user: User, d: ReturnType<typeof parseDraft>): Promise<NewDraft> {
  const content = normalizeContent(d.content);
  if (d.timestamp !== undefined && d.timestamp < 0) throw new BadRequest('Timestamp must not be negative.');
  // Drafts report whole seconds (Draft.to_dict's int()).
  const timestamp = d.timestamp === undefined ? nowSeconds() : Math.floor(d.timestamp);
  if (d.type === 'stream') {
    const topic = truncateTopic(d.topic);
    if (topic.includes('\u0000')) throw new BadRequest('Topic must not contain null bytes');
    if (d.to.length !== 1) throw new BadRequest('Must specify exactly 1 channel ID for channel messages');
    const stream = await getStream(services.database.db, user.realm_id, d.to[0]!);
    const graph = await services.cache.groupGraph(user.realm_id);
    if (!stream || !channelAccess(graph, user, stream, await isSubscribed(services.database.db, user.id, stream.id)).content) throw new InvalidStreamId();
    return { type: 'stream', to: [stream.id], topic, content, timestamp };
  }
  // A direct message draft with no recipients has none, and reads back as type "".
  if (d.type === 'private' && d.to.length) {
    const users = await services.cache.usersIncluding(user.realm_id, d.to);
    for (const id of d.to) if (!users.get(id)?.is_active) throw new BadRequest(`Invalid user ID ${id}`);
    return { type: 'private', to: draftRecipients(user, d.to), topic: '', content, timestamp };
  }
  return { type: '', to: [], topic: '', content, timestamp };
}

export async function createDrafts(services: Services, user: User, drafts: ReturnType<typeof parseDraft>[]): Promise<{ ids: number[] }> {
  requireDraftSync(user);
  const valid: NewDraft[] = [];
  for (const d of drafts) valid.push(await validateDraft(services, user, d));
  return services.database.transaction(async (tx, onCommit) => {
    const ids = await insertDrafts(tx, user.id, valid);
    const shaped = valid.map((d, i) => ({ id: ids[i]!, ...d }));
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'drafts', op: 'add', drafts: shaped } });
    return { ids };
  });
}

export async function editDraft(services: Services, user: User, id: number, draft: ReturnType<typeof parseDraft>): Promise<void> {
  requireDraftSync(user);
  // As Zulip's do_edit_draft: the draft is looked up before the new text and recipients are checked.
  if (!(await getDraft(services.database.db, user.id, id))) throw new ResourceNotFound('Draft does not exist');
  const valid = await validateDraft(services, user, draft);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await getDraft(tx, user.id, id))) throw new ResourceNotFound('Draft does not exist');
    await updateDraft(tx, user.id, id, valid);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'drafts', op: 'update', draft: { id, ...valid } } });
  });
}

export async function removeDraft(services: Services, user: User, id: number): Promise<void> {
  requireDraftSync(user);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await getDraft(tx, user.id, id))) throw new ResourceNotFound('Draft does not exist');
    await deleteDraft(tx, user.id, id);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'drafts', op: 'remove', draft_id: id } });
  });
}

// ---- saved snippets ----

/**
 * As the StringConstraints of Zulip's create_saved_snippet and edit_saved_snippet: each text is
 * stripped first, then must be non-blank and within its limit (code points).
 */
function validateSnippetText(title: string | undefined, content: string | undefined): void {
  const check = (value: string | undefined, name: string, max: number) => {
    if (value === undefined) return;
    const stripped = value.trim();
    if (!stripped) throw new BadRequest(`${name} cannot be blank`);
    checkLength(stripped, name, max);
  };
  check(title, 'title', MAX_SNIPPET_TITLE_LENGTH);
  check(content, 'content', MAX_MESSAGE_LENGTH);
}

export async function createSnippet(services: Services, user: User, title: string, content: string): Promise<{ saved_snippet_id: number }> {
  validateSnippetText(title, content);
  // Zulip's create_saved_snippet stores both texts stripped.
  const snippet = { title: title.trim(), content: content.trim(), date_created: nowSeconds() };
  return services.database.transaction(async (tx, onCommit) => {
    const id = await insertSnippet(tx, user.realm_id, user.id, snippet);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'saved_snippets', op: 'add', saved_snippet: { id, ...snippet } } });
    return { saved_snippet_id: id };
  });
}

export async function editSnippet(services: Services, user: User, id: number, title: string | undefined, content: string | undefined): Promise<void> {
  // As Zulip's edit_saved_snippet: nothing to change is success at once (no lookup, no event),
  // and both texts are stripped.
  if (title === undefined && content === undefined) return;
  validateSnippetText(title, content);
  await services.database.transaction(async (tx, onCommit) => {
    const current = await getSnippet(tx, user.id, id);
    if (!current) throw new ResourceNotFound('Saved snippet does not exist.');
    const fields = { ...(title !== undefined ? { title: title.trim() } : {}), ...(content !== undefined ? { content: content.trim() } : {}) };
    await updateSnippet(tx, user.id, id, fields);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'saved_snippets', op: 'update', saved_snippet: { ...current, ...fields } } });
  });
}

export async function removeSnippet(services: Services, user: User, id: number): Promise<void> {
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await getSnippet(tx, user.id, id))) throw new ResourceNotFound('Saved snippet does not exist.');
    await deleteSnippet(tx, user.id, id);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'saved_snippets', op: 'remove', saved_snippet_id: id } });
  });
}
