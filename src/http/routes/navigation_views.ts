// Navigation views; the fragment in the path may contain slashes (narrow/is/starred).
import { decodedPathPart, type Router } from '../router.js';
import { addNavigationView, listNavigationViews, MAX_FRAGMENT_LENGTH, removeNavigationView, updateNavigationView } from '../../actions/navigation_views.js';

export function registerNavigationViewRoutes(r: Router): void {
  r.get('/navigation_views', async ({ services, user }) => ({ navigation_views: await listNavigationViews(services, user) }));

  // add_navigation_view: is_pinned has no default; it is read after fragment, as Zulip declares them.
  r.post('/navigation_views', async ({ params, services, user }) => {
    await addNavigationView(services, user, params.str('fragment', { max: MAX_FRAGMENT_LENGTH }), params.requiredBool('is_pinned'), params.optStr('name'));
    return {};
  });

  r.patch('/navigation_views/{fragment*}', async (ctx) => {
    const { params, services, user } = ctx;
    await updateNavigationView(services, user, decodedPathPart(ctx, 'fragment'), params.optBool('is_pinned'), params.optStr('name'));
    return {};
  });

  r.delete('/navigation_views/{fragment*}', async (ctx) => {
    await removeNavigationView(ctx.services, ctx.user, decodedPathPart(ctx, 'fragment'));
    return {};
  });
}
