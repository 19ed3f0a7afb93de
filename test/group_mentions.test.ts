// Mentions of system groups and deactivated groups, as Zulip's UserGroupMentionPattern renders
// them: every named group is found by name (MentionData), a system group shown by its display
// name (get_user_group_mention_display_name: role:administrators as "Administrators"), and a
// deactivated group's mention made silent. A system group's can_mention_group is role:nobody
// (default_for_system_groups), so check_user_group_mention_allowed refuses its non-silent mention.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, testServerFor, sendToChannel } from './helpers.js';

const t = testServerFor({ member: { name: 'Mia Member' } });

/** A message to the channel both are subscribed to (made on first use). */
async function send(c: Client, content: string): Promise<number> {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [t.owner.userId, t.member.userId] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return sendToChannel(c, 'lobby', 'groups', content);
}

async function groupId(c: Client, name: string): Promise<number> {
  const res = await c.get('/user_groups');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const g = res.body.user_groups.find((x: any) => x.name === name);
  assert.ok(g, `group ${name}`);
  return g.id;
}

async function read(c: Client, id: number): Promise<{ html: string; flags: string[] }> {
  const res = await c.get(`/messages/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { html: res.body.message.content, flags: res.body.message.flags };
}

test('a silent mention of a system group renders with its display name and mentions nobody', async () => {
  const admins = await groupId(t.owner, 'role:administrators');
  const id = await send(t.member, 'ask @_*role:administrators* first');
  const { html, flags } = await read(t.owner, id);
  assert.equal(html, `<p>ask <span class="user-group-mention silent" data-user-group-id="${admins}">Administrators</span> first</p>`);
  assert.ok(!flags.includes('mentioned'), JSON.stringify(flags));
});

test('a system group may be mentioned silently only: its can_mention_group is role:nobody, so a mention is refused to anyone; a preview shows "@Display name"', async () => {
  const admins = await groupId(t.owner, 'role:administrators');
  const internet = await groupId(t.owner, 'role:internet');
  const nobody = await groupId(t.owner, 'role:nobody');
  await send(t.member, 'first, a message of mine there');
  const groups = (await t.owner.get('/user_groups')).body.user_groups.filter((g: any) => g.is_system_group);
  assert.deepEqual(groups.map((g: any) => [g.name, g.can_mention_group]), groups.map((g: any) => [g.name, nobody]));
  for (const c of [t.member, t.owner]) {
    const res = await c.post('/messages', { type: 'stream', to: 'lobby', topic: 'groups', content: 'paging @*role:administrators*' });
    assert.deepEqual([res.status, res.body.msg], [400, "You are not allowed to mention user group 'role:administrators'."]);
  }
  // Rendered (a preview checks no permission): the display name, as a mention.
  const preview = await t.member.post('/messages/render', { content: 'paging @*role:administrators* (and @_*role:internet*)' });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.equal(
    preview.body.rendered,
    `<p>paging <span class="user-group-mention" data-user-group-id="${admins}">@Administrators</span> (and <span class="user-group-mention silent" data-user-group-id="${internet}">Everyone on the internet</span>)</p>`,
  );
});

test('a deactivated group: its mention renders silent and mentions nobody', async () => {
  const made = await t.owner.post('/user_groups/create', { name: 'retired', description: 'Old', members: [t.member.userId] });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const gid = made.body.group_id;
  assert.equal((await t.owner.post(`/user_groups/${gid}/deactivate`)).status, 200);
  const id = await send(t.owner, 'thanks @*retired*');
  const { html, flags } = await read(t.member, id);
  assert.equal(html, `<p>thanks <span class="user-group-mention silent" data-user-group-id="${gid}">retired</span></p>`);
  assert.ok(!flags.includes('mentioned'), JSON.stringify(flags));
});
