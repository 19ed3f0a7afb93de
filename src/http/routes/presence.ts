// Presence and typing notifications.
import { userByIdOrAddress } from '../../queries/user_lookup.js';
import { decodedPathPart, type Router } from '../router.js';
import { check } from '../../lib/params.js';
import { BadRequest, NoSuchUser } from '../../errors.js';
import { legacyPresence, legacyPresences, modernPresences, newestPresenceUpdateId, presenceRows, updatePresence } from '../../actions/presence.js';
import { sendTyping } from '../../actions/typing.js';
import { nowSeconds } from '../../services.js';

const DAY = 86400;

export function registerPresenceRoutes(r: Router): void {
  r.post('/users/me/presence', async ({ params, services, user, realm }) => {
    // Zulip's update_active_status_backend is @human_users_only.
    if (user.is_bot) throw new BadRequest('This endpoint does not accept bot requests.');
    const status = params.str('status');
    if (status !== 'active' && status !== 'idle') throw new BadRequest(`Invalid status: ${status}`);
    const pingOnly = params.bool('ping_only', false);
    params.optBool('new_user_input');
    const slim = params.bool('slim_presence', false);
    const lastUpdateId = params.optInt('last_update_id');
    const historyDays = params.optInt('history_limit_days');
    if (historyDays !== undefined && historyDays < 0) throw new BadRequest('Invalid history_limit_days');
    await updatePresence(services, user, realm, status);
    // As documented, a ping's answer carries neither the presences nor the server's time.
    if (pingOnly) return {};
    const out: Record<string, unknown> = { server_timestamp: Date.now() / 1000 };
    const since = nowSeconds() - (historyDays ?? 14) * DAY;
    const rows = await presenceRows(services.database.db, realm.id, lastUpdateId ?? -1, since);
    out.presences = lastUpdateId !== undefined || slim ? modernPresences(rows) : legacyPresences(rows, await services.cache.users(realm.id), services.emailDomains);
    // In both formats, as Zulip.
    out.presence_last_update_id = newestPresenceUpdateId(rows, lastUpdateId);
    return out;
  });

  r.get('/realm/presence', async ({ services, realm }) => {
    const rows = await presenceRows(services.database.db, realm.id, -1, nowSeconds() - 14 * DAY);
    return { server_timestamp: Date.now() / 1000, presences: legacyPresences(rows, await services.cache.users(realm.id), services.emailDomains) };
  });

  r.get('/users/{user_id_or_email}/presence', async (ctx) => {
    const { services, realm } = ctx;
    const key = decodedPathPart(ctx, 'user_id_or_email');
    // As Zulip's get_presence_backend: an active user of the organization (get_active_user), not a bot.
    const target = await userByIdOrAddress(services, ctx.user, key);
    if (!target || !target.is_active) throw new NoSuchUser();
    if (target.is_bot) throw new BadRequest('Presence is not supported for bot users.');
    const rows = await presenceRows(services.database.db, realm.id, -1, 0);
    const row = rows.find((x) => x.user_id === target.id);
    // Zulip names the user as the request did (ID or email).
    if (!row) throw new BadRequest(`No presence data for ${key}`);
    // This endpoint's entries carry only the status and its time.
    const full = legacyPresence(row) as Record<string, { status: string; timestamp: number }>;
    const brief = (e: { status: string; timestamp: number }) => ({ status: e.status, timestamp: e.timestamp });
    return { presence: { website: brief(full.website!), aggregated: brief(full.aggregated!) } };
  });

  r.post('/typing', async ({ params, services, user, realm }) => {
    const op = params.str('op');
    if (op !== 'start' && op !== 'stop') throw new BadRequest('Invalid op');
    const type = params.optStr('type') ?? 'direct';
    if (type === 'stream' || type === 'channel') {
      // As Zulip's send_notification_backend (since feature level 215): the channel is stream_id
      // alone, 'to' is ignored for this type, and a missing one is a plain BAD_REQUEST with
      // Zulip's text (its API documentation's example, 'Missing channel ID', is not what it says).
      // stream_id and 'to' are Json[... | None] = None there: a JSON null is as if left out.
      const streamId = params.isNull('stream_id') ? (params.accept('stream_id'), undefined) : params.optInt('stream_id');
      if (streamId === undefined) throw new BadRequest("Missing 'stream_id' argument");
      const topic = params.optStr('topic');
      if (topic === undefined) throw new BadRequest('Missing topic');
      await sendTyping(services, user, realm, { kind: 'stream', streamId, topic, op });
    } else if (type === 'direct') {
      // 'private' is no longer a type here (Zulip stopped accepting it at feature level 215).
      // Zulip answers a missing list as BAD_REQUEST (not REQUEST_VARIABLE_MISSING).
      const to = params.isNull('to') ? (params.accept('to'), undefined) : params.optJson('to', check.intList);
      if (to === undefined) throw new BadRequest("Missing 'to' argument");
      await sendTyping(services, user, realm, { kind: 'direct', userIds: to, op });
    } else {
      throw new BadRequest('Invalid type');
    }
    return {};
  });
}
