// The Notification Bot's notices about a channel's changes, in its "channel events" topic, as
// Zulip's zerver/actions/streams.py sends them: rename, description, access permissions, message
// retention, topics policy, archiving and unarchiving. Each follows the change's own events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, openQueue, queuedEvents, testServerFor, NOTIFICATION_BOT } from './helpers.js';

const t = testServerFor({ member: { name: 'Mia Member' } });

const owner = () => `@_**${t.owner.fullName}|${t.owner.userId}**`;

/** A public channel the owner and the member are subscribed to, made by the owner. */
async function makeChannel(name: string, extra: Record<string, any> = {}): Promise<number> {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name, description: extra.description ?? '' }], principals: [t.owner.userId, t.member.userId], ...extra.params });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = await t.owner.get('/get_stream_id', { stream: name });
  assert.equal(id.status, 200, JSON.stringify(id.body));
  return id.body.stream_id;
}

async function patch(streamId: number, params: Record<string, any>): Promise<void> {
  const res = await t.owner.patch(`/streams/${streamId}`, params);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The messages of a channel's topic, oldest first, as `c` reads them. */
async function topicMessages(c: Client, streamId: number, topic = 'channel events'): Promise<any[]> {
  const res = await c.get('/messages', {
    anchor: 'oldest',
    num_before: 0,
    num_after: 100,
    apply_markdown: false,
    allow_empty_topic_name: true,
    narrow: JSON.stringify([
      { operator: 'channel', operand: streamId },
      { operator: 'topic', operand: topic },
    ]),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.messages;
}

/** The newest notice in the channel's events topic: from the Notification Bot, its Markdown returned. */
async function lastNotice(c: Client, streamId: number, topic = 'channel events'): Promise<any> {
  const msgs = await topicMessages(c, streamId, topic);
  const m = msgs[msgs.length - 1];
  assert.ok(m, 'a notice was posted');
  assert.equal(m.sender_email, NOTIFICATION_BOT);
  assert.equal(m.sender_full_name, 'Notification Bot');
  return m;
}

test('a rename: "renamed channel **old** to **new**.", after the name event, in the channel under its new name, unread for all subscribed', async () => {
  const id = await makeChannel('orchard');
  const before = (await topicMessages(t.member, id)).length;
  const q = await openQueue(t.member, ['stream', 'message']);
  await patch(id, { new_name: 'grove' });
  const msgs = await topicMessages(t.member, id);
  assert.equal(msgs.length, before + 1);
  const m = msgs[msgs.length - 1];
  assert.equal(m.sender_email, NOTIFICATION_BOT);
  assert.equal(m.content, `${owner()} renamed channel **orchard** to **grove**.`);
  assert.equal(m.display_recipient, 'grove');
  assert.deepEqual(m.flags, [], 'unread for a subscriber');
  const mine = await lastNotice(t.owner, id);
  assert.equal(mine.id, m.id);
  assert.deepEqual(mine.flags, [], 'unread for the one who renamed it too (only the sender reads its own message)');
  const events = (await queuedEvents(t.member, q)).filter((e) => e.type === 'stream' || e.type === 'message');
  assert.deepEqual(
    events.map((e) => (e.type === 'stream' ? `stream ${e.op} ${e.property}` : `message ${e.message.id}`)),
    ['stream update name', `message ${m.id}`],
  );
  const rendered = await t.member.get(`/messages/${m.id}`);
  assert.equal(rendered.body.message.content, `<p><span class="user-mention silent" data-user-id="${t.owner.userId}">${t.owner.fullName}</span> renamed channel <strong>orchard</strong> to <strong>grove</strong>.</p>`);
});

test('a description: the old and the new quoted, an empty one as *No description.*', async () => {
  const id = await makeChannel('meadow', { description: 'Wild **flowers**' });
  await patch(id, { description: 'Grass only' });
  let m = await lastNotice(t.member, id);
  assert.equal(
    m.content,
    `${owner()} changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nWild **flowers**\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\nGrass only\n\`\`\`\``,
  );
  await patch(id, { description: '' });
  m = await lastNotice(t.member, id);
  assert.equal(
    m.content,
    `${owner()} changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nGrass only\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
  );
});

test('a description and a name in one request: the description notice first, under the old name, then the rename', async () => {
  const id = await makeChannel('pond');
  const before = (await topicMessages(t.member, id)).length;
  await patch(id, { description: 'Ducks', new_name: 'lake' });
  const msgs = (await topicMessages(t.member, id)).slice(before);
  assert.equal(msgs.length, 2);
  assert.match(msgs[0].content, /changed the description for this channel\./);
  assert.equal(msgs[1].content, `${owner()} renamed channel **pond** to **lake**.`);
});

test('access permissions: "from **Public** to **Private, protected history**", and a notice even when the policy stays', async () => {
  const id = await makeChannel('vault');
  const q = await openQueue(t.member, ['stream', 'message']);
  await patch(id, { is_private: true });
  let m = await lastNotice(t.member, id);
  assert.equal(m.content, `${owner()} changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, protected history**.`);
  const events = (await queuedEvents(t.member, q)).filter((e) => e.type === 'stream' || e.type === 'message');
  assert.deepEqual(
    events.map((e) => (e.type === 'stream' ? `stream ${e.op} ${e.property}` : `message ${e.message.id}`)),
    ['stream update invite_only', `message ${m.id}`],
  );
  await patch(id, { history_public_to_subscribers: true });
  m = await lastNotice(t.member, id);
  assert.equal(m.content, `${owner()} changed the [access permissions](/help/channel-permissions) for this channel from **Private, protected history** to **Private, shared history**.`);
  // Zulip's do_change_stream_permission runs whenever a privacy parameter is named.
  const before = (await topicMessages(t.member, id)).length;
  await patch(id, { is_private: true, history_public_to_subscribers: true });
  const msgs = await topicMessages(t.member, id);
  assert.equal(msgs.length, before + 1);
  assert.equal(msgs[msgs.length - 1].content, `${owner()} changed the [access permissions](/help/channel-permissions) for this channel from **Private, shared history** to **Private, shared history**.`);
});

test('archiving: "Channel #**name** has been archived.", read for everyone; unarchiving: "… has been unarchived.", unread', async () => {
  const id = await makeChannel('attic');
  const q = await openQueue(t.member, ['stream', 'message']);
  const res = await t.owner.delete(`/streams/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  let m = await lastNotice(t.member, id);
  assert.equal(m.content, 'Channel #**attic** has been archived.');
  assert.deepEqual(m.flags, ['read']);
  const events = (await queuedEvents(t.member, q)).filter((e) => e.type === 'stream' || e.type === 'message');
  assert.deepEqual(
    events.map((e) => (e.type === 'stream' ? `stream ${e.op}${e.property ? ' ' + e.property : ''}` : `message ${e.message.id}`)),
    ['stream update is_archived', 'stream delete', `message ${m.id}`],
  );
  const rendered = await t.member.get(`/messages/${m.id}`);
  assert.match(rendered.body.message.content, /^<p>Channel <a class="stream" data-stream-id="\d+" href="[^"]+">#attic<\/a> has been archived\.<\/p>$/);

  // A change to the archived channel is told there too (archived_channel_notice).
  await patch(id, { description: 'Old things' });
  m = await lastNotice(t.member, id);
  assert.match(m.content, /changed the description for this channel\./);

  await patch(id, { is_archived: false });
  m = await lastNotice(t.member, id);
  assert.equal(m.content, 'Channel #**attic** has been unarchived.');
  assert.deepEqual(m.flags, []);
});

test('message retention: from the organization default (forever) to 30 days, and back to forever', async () => {
  const id = await makeChannel('archive-room');
  await patch(id, { message_retention_days: 30 });
  let m = await lastNotice(t.member, id);
  assert.equal(
    m.content,
    `${owner()} has changed the [message retention period](/help/message-retention-policy) for this channel:\n* **Old retention period**: Forever\n* **New retention period**: 30 days\n\nMessages in this channel will now be automatically deleted 30 days after they are sent.`,
  );
  await patch(id, { message_retention_days: 'unlimited' });
  m = await lastNotice(t.member, id);
  assert.equal(
    m.content,
    `${owner()} has changed the [message retention period](/help/message-retention-policy) for this channel:\n* **Old retention period**: 30 days\n* **New retention period**: Forever\n\nMessages in this channel will now be retained forever.`,
  );
});

test('topics policy: the setting\'s names, and a channel that allows only the empty topic gets it there', async () => {
  const id = await makeChannel('hall');
  await patch(id, { topics_policy: 'disable_empty_topic' });
  const m = await lastNotice(t.member, id);
  assert.equal(m.content, `${owner()} changed the "Allow posting to the *general chat* topic?" setting from **Automatic** to **No *general chat* topic**.`);
  // Only the empty topic allowed: no message may be in a named topic, so the events topic goes first.
  const ids = (await topicMessages(t.member, id)).map((x) => x.id);
  const del = await t.owner.post(`/streams/${id}/delete_topic`, { topic_name: 'channel events' });
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.ok(ids.length > 0);
  await patch(id, { topics_policy: 'empty_topic_only' });
  const e = await lastNotice(t.member, id, '');
  assert.equal(e.content, `${owner()} changed the "Allow posting to the *general chat* topic?" setting from **No *general chat* topic** to **Only *general chat* topic allowed**.`);
  assert.equal(e.subject, '');
});

test('no notice when nothing changes that Zulip would act on: the same topics policy', async () => {
  const id = await makeChannel('yard');
  const before = (await topicMessages(t.member, id)).length;
  await patch(id, { topics_policy: 'inherit' });
  assert.equal((await topicMessages(t.member, id)).length, before);
});

/** A system group's id, as the owner lists groups. */
async function systemGroupId(name: string): Promise<number> {
  const res = await t.owner.get('/user_groups');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.user_groups.find((g: any) => g.name === name).id;
}

test('posting permissions: who may post before and after, groups and users as silent mentions, after the setting\'s events', async () => {
  const id = await makeChannel('podium');
  const everyone = await systemGroupId('role:everyone');
  const admins = await systemGroupId('role:administrators');
  const moderators = await systemGroupId('role:moderators');
  const stream = await t.owner.get(`/streams/${id}`);
  assert.equal(stream.body.stream.can_send_message_group, everyone, 'a new channel lets everyone post');
  const q = await openQueue(t.member, ['stream', 'message']);
  await patch(id, { can_send_message_group: JSON.stringify({ new: admins }) });
  let m = await lastNotice(t.member, id);
  assert.equal(
    m.content,
    `${owner()} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: @_*role:everyone*\n* **New**: @_*role:administrators*`,
  );
  assert.deepEqual(m.flags, []);
  const events = (await queuedEvents(t.member, q)).filter((e) => e.type === 'stream' || e.type === 'message');
  assert.deepEqual(
    events.map((e) => (e.type === 'stream' ? `stream ${e.op} ${e.property}` : `message ${e.message.id}`)),
    ['stream update can_send_message_group', 'stream update stream_post_policy', 'stream update is_announcement_only', `message ${m.id}`],
  );
  // Rendered with the system groups' display names.
  const html = (await t.member.get(`/messages/${m.id}`)).body.message.content;
  assert.equal(
    html,
    `<p><span class="user-mention silent" data-user-id="${t.owner.userId}">${t.owner.fullName}</span> changed the <a href="/help/channel-posting-policy">posting permissions</a> for this channel:</p>\n` +
      `<ul>\n<li><strong>Old</strong>: <span class="user-group-mention silent" data-user-group-id="${everyone}">Everyone</span></li>\n` +
      `<li><strong>New</strong>: <span class="user-group-mention silent" data-user-group-id="${admins}">Administrators</span></li>\n</ul>`,
  );
  // An anonymous value: its subgroups, then its members, each in id order.
  await patch(id, { can_send_message_group: JSON.stringify({ new: { direct_members: [t.member.userId, t.owner.userId], direct_subgroups: [moderators] } }) });
  m = await lastNotice(t.member, id);
  const [first, second] = [t.owner, t.member].sort((a, b) => a.userId - b.userId);
  assert.equal(
    m.content,
    `${owner()} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: @_*role:administrators*\n` +
      `* **New**: @_*role:moderators*, @_**${first!.fullName}|${first!.userId}**, @_**${second!.fullName}|${second!.userId}**`,
  );
  // The same named group again changes nothing and tells nobody.
  await patch(id, { can_send_message_group: JSON.stringify({ new: admins }) });
  const count = (await topicMessages(t.member, id)).length;
  await patch(id, { can_send_message_group: JSON.stringify({ new: admins }) });
  assert.equal((await topicMessages(t.member, id)).length, count);
});
