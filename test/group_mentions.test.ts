// Mentions of system groups and deactivated groups, as Zulip's UserGroupMentionPattern renders
// them: every named group is found by name (MentionData), a system group shown by its display
// name (get_user_group_mention_display_name: role:administrators as "Administrators"), and a
// deactivated group's mention made silent.
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

test('a mention of a system group (anyone may mention one) shows "@Display name" and mentions its members through subgroups', async () => {
  const admins = await groupId(t.owner, 'role:administrators');
  const internet = await groupId(t.owner, 'role:internet');
  const id = await send(t.member, 'paging @*role:administrators* (and @_*role:internet*)');
  const seen = await read(t.owner, id);
  assert.equal(
    seen.html,
    `<p>paging <span class="user-group-mention" data-user-group-id="${admins}">@Administrators</span> (and <span class="user-group-mention silent" data-user-group-id="${internet}">Everyone on the internet</span>)</p>`,
  );
  // The owner is in role:administrators through role:owners.
  assert.ok(seen.flags.includes('mentioned'), JSON.stringify(seen.flags));
  assert.ok(!(await read(t.member, id)).flags.includes('mentioned'), 'the member is not an administrator');
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
