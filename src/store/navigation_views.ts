// A user's navigation views: overrides of the built-in views and custom views, one row per
// fragment (a unique index on user and fragment).
import type { Executor } from './db.js';

export interface NavigationView {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

export async function findNavigationView(db: Executor, userId: number, fragment: string): Promise<NavigationView | undefined> {
  const r = await db.selectFrom('navigation_views').select(['fragment', 'is_pinned', 'name']).where('user_id', '=', userId).where('fragment', '=', fragment).executeTakeFirst();
  return r ? { fragment: r.fragment, is_pinned: !!r.is_pinned, name: r.name } : undefined;
}

/** The user's views in the order they were first stored. */
export async function listNavigationViewRows(db: Executor, userId: number): Promise<NavigationView[]> {
  const rows = await db.selectFrom('navigation_views').select(['fragment', 'is_pinned', 'name']).where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((r) => ({ fragment: r.fragment, is_pinned: !!r.is_pinned, name: r.name }));
}

/** Stores a view; a second view with the same fragment fails with a UniqueConflict. */
export async function insertNavigationView(db: Executor, userId: number, view: NavigationView): Promise<void> {
  await db.insertInto('navigation_views').values({ user_id: userId, fragment: view.fragment, is_pinned: view.is_pinned, name: view.name }).execute();
}

export async function updateNavigationViewRow(db: Executor, userId: number, fragment: string, data: { is_pinned?: boolean; name?: string }): Promise<void> {
  await db.updateTable('navigation_views').set(data).where('user_id', '=', userId).where('fragment', '=', fragment).execute();
}

export async function deleteNavigationView(db: Executor, userId: number, fragment: string): Promise<void> {
  await db.deleteFrom('navigation_views').where('user_id', '=', userId).where('fragment', '=', fragment).execute();
}
