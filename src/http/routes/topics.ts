// Whole-topic operations on a channel.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { InvalidStreamId } from '../../errors.js';
import { deleteTopic } from '../../actions/topic_delete.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../lib/message_text.js';

export function registerTopicRoutes(r: Router): void {
  r.post('/streams/{stream_id}/delete_topic', async (ctx) => {
    const streamId = pathInt(ctx, 'stream_id', () => new InvalidStreamId());
    const raw = ctx.params.str('topic_name');
    // The empty topic's display name stands for the empty topic.
    const topic = raw === EMPTY_TOPIC_DISPLAY_NAME ? '' : raw.trim();
    return deleteTopic(ctx.services, ctx.user, ctx.realm, streamId, topic);
  });
}
