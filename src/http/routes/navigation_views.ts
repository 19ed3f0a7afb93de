// Navigation views; the fragment in the path may contain slashes (narrow/is/starred).
import type { Router } from '../router.js';
import { addNavigationView, listNavigationViews, removeNavigationView, updateNavigationView } from '../../actions/navigation_views.js';

function fragmentOf(path: Record<string, string>): string {
  try {
    return decodeURIComponent(path.fragment ?? '');
  } catch {
    return path.fragment ?? '';
  }
}

export function registerNavigationViewRoutes(r: Router): void {
  r.get('/navigation_views', async ({ services, user }) => ({ navigation_views: await listNavigationViews(services, user) }));

  r.post('/navigation_views', async ({ params, services, user }) => {
    await addNavigationView(services, user, params.str('fragment'), params.bool('is_pinned', true), params.optStr('name'));
    return {};
  });

  r.patch('/navigation_views/{fragment*}', async ({ params, services, user, path }) => {
    await updateNavigationView(services, user, fragmentOf(path), params.optBool('is_pinned'), params.optStr('name'));
    return {};
  });

  r.delete('/navigation_views/{fragment*}', async ({ services, user, path }) => {
    await removeNavigationView(services, user, fragmentOf(path));
    return {};
  });
}
