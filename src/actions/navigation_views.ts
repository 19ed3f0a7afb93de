// Navigation views: a user's overrides of the built-in views (pinned or hidden) and custom views.
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import { BadRequest, ResourceNotFound } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { onConflict } from '../store/conflicts.js';
import type { Executor } from '../store/db.js';
import type { NavigationView } from '../store/navigation_views.js';
import { deleteNavigationView, findNavigationView, insertNavigationView, listNavigationViewRows, updateNavigationViewRow } from '../store/navigation_views.js';

/** The views every user has; they can be pinned or hidden but never renamed. */
export const BUILT_IN_VIEWS: ReadonlySet<string> = new Set([
  'inbox',
  'recent',
  'feed',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'narrow/is/followed',
  'narrow/has/reaction/sender/me',
  'drafts',
  'scheduled',
  'reminders',
]);

const NOT_FOUND_MSG = 'Navigation view does not exist.';
const ALREADY_EXISTS_MSG = 'Navigation view already exists.';
const BUILT_IN_NAMED_MSG = 'Built-in views cannot have a custom name.';
const MAX_NAME_LENGTH = 60;
/**
 * Zulip sets no limit on a view's fragment, but it is a key of a unique index, which PostgreSQL
 * cannot build over a value of more than about 2,700 bytes: 500 characters fit any narrow URL.
 */
export const MAX_FRAGMENT_LENGTH = 500;

export async function listNavigationViews(services: Services, user: User): Promise<NavigationView[]> {
  return listNavigationViewRows(services.database.db, user.id);
}

/** A name as Zulip's views parse it (stripped; blank refused before anything else). */
function parsedName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (!trimmed) throw new BadRequest('name cannot be blank');
  if (trimmed.length > MAX_NAME_LENGTH) throw new BadRequest(`Name too long (limit: ${MAX_NAME_LENGTH} characters)`);
  return trimmed;
}

/** Zulip's add_navigation_view and update_navigation_view refuse a name another view of the user has (or this one already has). */
async function refuseTakenName(db: Executor, userId: number, name: string | undefined): Promise<void> {
  if (name !== undefined && (await listNavigationViewRows(db, userId)).some((v) => v.name === name)) throw new BadRequest(ALREADY_EXISTS_MSG);
}

export async function addNavigationView(services: Services, user: User, fragment: string, isPinned: boolean, rawName: string | undefined): Promise<void> {
  const f = fragment.trim();
  if (!f) throw new BadRequest('fragment cannot be blank');
  const name = parsedName(rawName);
  if (BUILT_IN_VIEWS.has(f)) {
    if (name !== undefined) throw new BadRequest(BUILT_IN_NAMED_MSG);
  } else if (name === undefined) {
    throw new BadRequest('Custom views must have a valid name.');
  }
  const finalName = name ?? null;
  await onConflict(services.database.transaction(async (tx, onCommit) => {
    if (await findNavigationView(tx, user.id, f)) throw new BadRequest(ALREADY_EXISTS_MSG);
    await refuseTakenName(tx, user.id, name);
    await insertNavigationView(tx, user.id, { fragment: f, is_pinned: isPinned, name: finalName });
    publishAfterCommit(services, onCommit, {
      realmId: user.realm_id,
      userIds: [user.id],
      event: { type: 'navigation_view', op: 'add', navigation_view: { fragment: f, is_pinned: isPinned, name: finalName } },
    });
  }), () => new BadRequest(ALREADY_EXISTS_MSG));
}

export async function updateNavigationView(services: Services, user: User, fragment: string, isPinned: boolean | undefined, rawName: string | undefined): Promise<void> {
  const name = parsedName(rawName);
  if (BUILT_IN_VIEWS.has(fragment) && name !== undefined) throw new BadRequest(BUILT_IN_NAMED_MSG);
  await services.database.transaction(async (tx, onCommit) => {
    // As Zulip's update_navigation_view: a name in use is refused before the view is looked up,
    // and get_navigation_view finds only stored views: a built-in one never configured is missing too.
    await refuseTakenName(tx, user.id, name);
    if (!(await findNavigationView(tx, user.id, fragment))) throw new ResourceNotFound(NOT_FOUND_MSG);
    const data: { is_pinned?: boolean; name?: string } = {};
    if (isPinned !== undefined) data.is_pinned = isPinned;
    if (name !== undefined) data.name = name;
    if (Object.keys(data).length) await updateNavigationViewRow(tx, user.id, fragment, data);
    // do_update_navigation_view tells the user's clients even when nothing was given to change.
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'navigation_view', op: 'update', fragment, data } });
  });
}

export async function removeNavigationView(services: Services, user: User, fragment: string): Promise<void> {
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await findNavigationView(tx, user.id, fragment))) throw new ResourceNotFound(NOT_FOUND_MSG);
    await deleteNavigationView(tx, user.id, fragment);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'navigation_view', op: 'remove', fragment } });
  });
}
