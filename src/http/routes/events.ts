// Event queues: POST /register (a queue plus the initial state), GET /events (long-poll),
// DELETE /events.
import { success, type Router } from '../router.js';
import { stringifyWithRaw } from '../../lib/raw_json.js';
import { check } from '../../lib/params.js';
import { BadRequest, ServerShuttingDown } from '../../errors.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from '../../lib/version.js';
import { initialState, STATE_EVENT_TYPES } from '../../actions/register.js';
import { parseQueueNarrow } from '../../events/narrow_filter.js';
import { queueElsewhere } from '../queue_move.js';
import { eventsBody } from '../long_poll.js';

function includeSubscribersParam(v: string | undefined): boolean | 'partial' {
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  if (v === 'partial') return 'partial';
  throw new BadRequest('Invalid include_subscribers');
}

const stringListOrNull = (v: unknown, name: string) => (v === null ? null : check.strList(v, name));

export function registerEventRoutes(r: Router): void {
  r.post('/register', async ({ services, params, user, realm, clientName, reply }) => {
    const applyMarkdown = params.bool('apply_markdown', false);
    const clientGravatar = params.bool('client_gravatar', true);
    const allPublicStreams = params.bool('all_public_streams', false);
    const includeSubscribers = includeSubscribersParam(params.optStr('include_subscribers'));
    const eventTypes = params.optJson('event_types', stringListOrNull) ?? null;
    const fetchEventTypes = params.optJson('fetch_event_types', stringListOrNull) ?? null;
    const capabilities = params.optJson('client_capabilities', check.object) ?? {};
    const narrow = parseQueueNarrow(params.optJson('narrow', check.list) ?? []);
    const slimPresence = params.bool('slim_presence', false);
    params.optInt('presence_history_limit_days');

    if (allPublicStreams && user.role === 600) throw new BadRequest('User not authorized for this query');
    if (!services.queues.acceptsQueues) throw new ServerShuttingDown();
    const fetchTypes = new Set<string>(fetchEventTypes ?? eventTypes ?? STATE_EVENT_TYPES);
    // The queue exists before the state is read, so nothing that happens meanwhile is lost; a client
    // may see an event whose effect is already in the state, which Zulip clients tolerate.
    const queue = services.queues.register({
      userId: user.id,
      realmId: realm.id,
      eventTypes,
      allPublicStreams,
      clientName,
      applyMarkdown,
      clientGravatar,
      emptyTopicName: capabilities.empty_topic_name === true,
      userSettingsObject: capabilities.user_settings_object === true,
      streamTypingNotifications: capabilities.stream_typing_notifications === true,
      bulkMessageDeletion: capabilities.bulk_message_deletion === true,
      linkifierUrlTemplate: capabilities.linkifier_url_template === true,
      includeDeactivatedGroups: capabilities.include_deactivated_groups === true,
      archivedChannels: capabilities.archived_channels === true,
      ...(narrow.length ? { narrow } : {}),
    });
    try {
      const state = await initialState(services, user, realm, {
        fetchEventTypes: fetchTypes,
        clientGravatar,
        includeSubscribers,
        applyMarkdown,
        slimPresence: slimPresence || capabilities.simplified_presence_events === true,
        userListIncomplete: capabilities.user_list_incomplete === true,
        userSettingsObject: capabilities.user_settings_object === true,
        fetchTypesNamed: (fetchEventTypes ?? eventTypes) !== null,
        emptyTopicName: capabilities.empty_topic_name === true,
        linkifierUrlTemplate: capabilities.linkifier_url_template === true,
        notificationSettingsNull: capabilities.notification_settings_null === true,
        archivedChannels: capabilities.archived_channels === true,
        includeDeactivatedGroups: capabilities.include_deactivated_groups === true,
      });
      // Written here, not by the router: parts of the state are JSON text already (RawJson).
      const body = stringifyWithRaw(
        success(params, {
          queue_id: queue.id,
          last_event_id: -1,
          zulip_feature_level: ZULIP_FEATURE_LEVEL,
          zulip_version: ZULIP_VERSION,
          zulip_merge_base: ZULIP_VERSION,
          ...state,
        }),
      );
      reply.type('application/json; charset=utf-8').send(body);
      return;
    } catch (err) {
      services.queues.delete(queue);
      throw err;
    }
  });

  r.get('/events', async ({ services, params, user, request, reply }) => {
    const queueId = params.str('queue_id');
    const lastEventId = params.optInt('last_event_id') ?? null;
    const dontBlock = params.bool('dont_block', false);
    let queue = services.queues.get(queueId, user.id);
    if (!queue) {
      // Another process's queue: it moves here if it can (http/queue_move.ts), else the poll is forwarded.
      const found = await queueElsewhere(services, queueId, user.id, request, reply, true);
      if (found === 'answered') return;
      queue = found;
    }
    // The response's 'close' before it is written means the client hung up while parked.
    const onClose = () => services.queues.abandon(queue);
    reply.raw.once('close', onClose);
    try {
      const events = await services.queues.poll(queue, lastEventId, dontBlock);
      // The events are stored as JSON text; the response is assembled around them.
      const ignored = params.ignored();
      const tail = ignored.length ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}` : '';
      const body = eventsBody(events, queue.id, tail);
      if (!reply.raw.destroyed) reply.type('application/json; charset=utf-8').send(body);
      return;
    } finally {
      reply.raw.off('close', onClose);
    }
  });

  r.delete('/events', async ({ services, params, user, request, reply }) => {
    const queueId = params.str('queue_id');
    let queue = services.queues.get(queueId, user.id);
    if (!queue) {
      // Forwarded to wherever the queue is now (it may have moved away from the process its id names).
      const found = await queueElsewhere(services, queueId, user.id, request, reply, false);
      if (found === 'answered') return;
      queue = found;
    }
    services.queues.delete(queue);
    services.handover?.whereabouts.delete(queueId);
    return {};
  });
}
