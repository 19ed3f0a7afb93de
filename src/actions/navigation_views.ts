// Navigation views: a user's overrides of the built-in views (pinned or hidden) and custom views.
import type { Services } from '../services.js';
import type { User } from '../store/users.js';
import { ApiError, BadRequest, ResourceNotFound } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { onConflict } from '../store/conflicts.js';
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
const MAX_NAME_LENGTH = 60;
/**
 * Zulip sets no limit on a view's fragment, but it is a key of a unique index, which PostgreSQL
 * cannot build over a value of more than about 2,700 bytes: 500 characters fit any narrow URL.
 */
export const MAX_FRAGMENT_LENGTH = 500;

export async function listNavigationViews(services: Services, user: User): Promise<NavigationView[]> {
  return listNavigationViewRows(services.database.db, user.id);
}

function checkName(fragment: string, name: string | undefined | null): string | null {
  if (BUILT_IN_VIEWS.has(fragment)) {
    if (name !== undefined && name !== null) throw new BadRequest('Built-in views cannot have a custom name');
    return null;
  }
  if (name === undefined || name === null || !name.trim()) throw new BadRequest('Custom views must have a name');
  if (name.length > MAX_NAME_LENGTH) throw new BadRequest(`Name too long (limit: ${MAX_NAME_LENGTH} characters)`);
  return name.trim();
}

export async function addNavigationView(services: Services, user: User, fragment: string, isPinned: boolean, name: string | undefined): Promise<void> {
  const f = fragment.trim();
  if (!f) throw new BadRequest('fragment cannot be blank');
  const finalName = checkName(f, name);
  await onConflict(services.database.transaction(async (tx, onCommit) => {
    if (await findNavigationView(tx, user.id, f)) throw new BadRequest('Navigation view already exists.');
    await insertNavigationView(tx, user.id, { fragment: f, is_pinned: isPinned, name: finalName });
    publishAfterCommit(services, onCommit, {
      realmId: user.realm_id,
      userIds: [user.id],
      event: { type: 'navigation_view', op: 'add', navigation_view: { fragment: f, is_pinned: isPinned, name: finalName } },
    });
  }), () => new BadRequest('Navigation view already exists.'));
}

export async function updateNavigationView(services: Services, user: User, fragment: string, isPinned: boolean | undefined, name: string | undefined): Promise<void> {
  const builtIn = BUILT_IN_VIEWS.has(fragment);
  if (builtIn && name !== undefined) throw new BadRequest('Built-in views cannot have a custom name');
  await services.database.transaction(async (tx, onCommit) => {
    const current = await findNavigationView(tx, user.id, fragment);
    if (!current && !builtIn) throw new ApiError(NOT_FOUND_MSG, 'NOT_FOUND', 404);
    if (name !== undefined && !name.trim()) throw new BadRequest('Custom views must have a name');
    if (name !== undefined && name.trim().length > MAX_NAME_LENGTH) throw new BadRequest(`Name too long (limit: ${MAX_NAME_LENGTH} characters)`);
    const data: { is_pinned?: boolean; name?: string } = {};
    if (isPinned !== undefined) data.is_pinned = isPinned;
    if (name !== undefined) data.name = name.trim();
    if (!current) {
      // A built-in view gets its override row the first time it is changed.
      await insertNavigationView(tx, user.id, { fragment, is_pinned: isPinned ?? true, name: null });
    } else if (Object.keys(data).length) {
      await updateNavigationViewRow(tx, user.id, fragment, data);
    }
    if (Object.keys(data).length) {
      publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'navigation_view', op: 'update', fragment, data } });
    }
  });
}

export async function removeNavigationView(services: Services, user: User, fragment: string): Promise<void> {
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await findNavigationView(tx, user.id, fragment))) throw new ResourceNotFound(NOT_FOUND_MSG);
    await deleteNavigationView(tx, user.id, fragment);
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'navigation_view', op: 'remove', fragment } });
  });
}
