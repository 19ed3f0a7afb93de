// POST /submessage: a vote, a new option, a task or a title change in a message's widget, stored
// as Zulip stores it (the client's content string, unchanged) and sent to everyone who can see
// the message as a `submessage` event. Zulip's rules: the message's sender attaches the first
// submessage; the content is JSON; in a poll or to-do list it has one of the shapes Zulip's clients
// send, and only the widget's author may change its question or title.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { hasSubmessageFrom, insertSubmessage, widgetSubmessage } from '../store/submessages.js';
import { BadRequest } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { modifiableMessage } from '../queries/message_access.js';
import { pollDataError, todoDataError, widgetTypeOf } from '../lib/widgets.js';
import { audience, takePart } from './reactions.js';

export async function addSubmessage(services: Services, user: User, realm: Realm, messageId: number, msgType: string, content: string): Promise<void> {
  const message = await modifiableMessage(services, user, messageId);
  const users = await services.cache.users(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    // Submessages are for everyone who can read the message, but its sender starts them.
    if (message.sender_id !== user.id && !(await hasSubmessageFrom(tx, message.id, message.sender_id))) {
      throw new BadRequest('You cannot attach a submessage to this message.');
    }
    let data: unknown;
    try {
      data = JSON.parse(content);
    } catch {
      throw new BadRequest('Invalid json for submessage');
    }
    const widgetType = widgetTypeOf((await widgetSubmessage(tx, message.id))?.content);
    const isAuthor = message.sender_id === user.id;
    const error = widgetType === 'poll' ? pollDataError(data, isAuthor) : widgetType === 'todo' ? todoDataError(data, isAuthor) : null;
    if (error) throw new BadRequest(error);
    const id = await insertSubmessage(tx, { message_id: message.id, sender_id: user.id, msg_type: msgType, content });
    // A vote takes part in the message as a reaction does.
    await takePart(services, tx, onCommit, realm, user, message);
    publishAfterCommit(services, onCommit, {
      realmId: realm.id,
      userIds: await audience(tx, realm.id, message, users),
      event: { type: 'submessage', msg_type: msgType, message_id: message.id, submessage_id: id, sender_id: user.id, content },
    });
  });
}
