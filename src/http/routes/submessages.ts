// POST /submessage: votes and changes in message widgets (polls, to-do lists).
import type { Router } from '../router.js';
import { check } from '../../lib/params.js';
import { addSubmessage } from '../../actions/submessages.js';

export function registerSubmessageRoutes(r: Router): void {
  r.post('/submessage', async ({ params, services, user, realm }) => {
    const messageId = params.json('message_id', check.int);
    const msgType = params.str('msg_type');
    const content = params.str('content');
    await addSubmessage(services, user, realm, messageId, msgType, content);
  });
}
