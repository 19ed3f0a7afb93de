// Custom emoji: upload, list, serve, deactivate; name rules, size and format limits, who may add
// and remove them; realm_emoji in /register and in events; reactions with custom emoji.
import { PNG as PNGImage } from 'pngjs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, openQueue, queuedEvents, rawRequest, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let admin: Client;
let ann: Client;
let bob: Client;
let guest: Client;
let groups: Record<string, number>;
before(async () => {
  t = await startTestServer();
  admin = await t.createUser({ name: 'Ada Admin', role: 'administrator' });
  ann = await t.createUser({ name: 'Ann Artist' });
  bob = await t.createUser({ name: 'Bob Other' });
  guest = await t.createUser({ name: 'Gus Guest', role: 'guest' });
  groups = Object.fromEntries((await ann.get('/user_groups')).body.user_groups.map((g: any) => [g.name, g.id]));
});
after(async () => {
  await t.close();
});

// The smallest valid PNG header and a GIF: the server checks the format from the bytes.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-fake-png-body')]);
const GIF = Buffer.from('GIF89a-fake-gif-body');
const upload = (c: Client, name: string, data: Buffer | string = PNG, fileName = 'image.png') =>
  c.upload(`/realm/emoji/${encodeURIComponent(name)}`, [{ field: 'filename', name: fileName, type: 'image/png', data }]);

test('custom emoji: upload, list, image served, event, /register', async () => {
  const q = await openQueue(bob, ['realm_emoji']);
  const res = await upload(ann, 'party parrot');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, 'success');
  const list = await bob.get('/realm/emoji');
  assert.equal(list.status, 200);
  const entries = Object.values(list.body.emoji) as any[];
  assert.equal(entries.length, 1);
  const e = entries[0];
  // Spaces become underscores.
  assert.equal(e.name, 'party_parrot');
  assert.equal(list.body.emoji[e.id], e);
  assert.equal(typeof e.id, 'string');
  assert.equal(e.deactivated, false);
  assert.equal(e.author_id, ann.userId);
  assert.equal(e.still_url, null);
  assert.match(e.source_url, new RegExp(`^/user_avatars/${t.realmId}/emoji/images/[0-9a-f]{8}\\.png$`));
  const image = await fetch(new URL(e.source_url, t.url));
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/png');
  assert.equal(image.headers.get('x-content-type-options'), 'nosniff');
  assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);
  assert.equal((await fetch(new URL(`/user_avatars/${t.realmId}/emoji/images/00000000.png`, t.url))).status, 404);
  assert.equal((await fetch(new URL(`/user_avatars/${t.realmId}/emoji/images/..%2F..%2Fx.png`, t.url))).status, 404);

  const evs = await queuedEvents(bob, q);
  assert.equal(evs.length, 1);
  assert.equal(evs[0].type, 'realm_emoji');
  assert.equal(evs[0].op, 'update');
  assert.deepEqual(evs[0].realm_emoji, list.body.emoji);
  const state = await bob.post('/register', { fetch_event_types: ['realm_emoji'] });
  assert.deepEqual(state.body.realm_emoji, list.body.emoji);

  // Messages render the custom emoji by name.
  const rendered = (await bob.post('/messages/render', { content: 'hi :party_parrot:' })).body.rendered;
  assert.equal(rendered, `<p>hi <img alt=":party_parrot:" class="emoji" src="${e.source_url}" title="party parrot"></p>`);

  // A GIF too; names are case-insensitive in the sense that only lowercase is allowed.
  assert.equal((await upload(ann, 'dance', GIF, 'dance.gif')).status, 200);
  assert.equal(Object.keys((await bob.get('/realm/emoji')).body.emoji).length, 2);
});

test('custom emoji: name, file and permission errors', async () => {
  const cases: Array<[string, string]> = [
    ['Parrot', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['bad!', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['trailing_', 'Emoji names must end with either a letter or digit.'],
    ['party_parrot', 'A custom emoji with this name already exists.'],
    ['octopus', 'Only administrators can override built-in emoji.'],
  ];
  for (const [name, msg] of cases) {
    const res = await upload(ann, name);
    assert.deepEqual([res.status, res.body.code, res.body.msg], [400, 'BAD_REQUEST', msg], name);
  }
  const none = await ann.post('/realm/emoji/nofile');
  assert.deepEqual([none.status, none.body.msg], [400, 'You must upload exactly one file.']);
  const two = await ann.upload('/realm/emoji/twofiles', [
    { name: 'a.png', data: PNG },
    { name: 'b.png', data: PNG },
  ]);
  assert.equal(two.body.msg, 'You must upload exactly one file.');
  const text = await upload(ann, 'notimage', 'just some text', 'x.png');
  assert.deepEqual([text.status, text.body.msg], [400, 'Invalid image format']);
  const big = await upload(ann, 'huge', Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]));
  assert.deepEqual([big.status, big.body.msg], [400, 'Uploaded file is larger than the allowed limit of 5 MiB']);
  const g = await upload(guest, 'guestemoji');
  assert.deepEqual([g.status, g.body.msg], [400, 'Not allowed for guest users']);
  assert.equal((await upload(guest, 'Bad Name!')).body.msg, 'Not allowed for guest users', 'the guest check comes first');
  const botRes = await ann.post('/bots', { full_name: 'Emoji Bot', short_name: 'emojibot', bot_type: 1 });
  const bot = new Client(t.url, (await ann.get(`/users/${botRes.body.user_id}`)).body.user.email, botRes.body.api_key, botRes.body.user_id);
  assert.equal((await upload(bot, 'botemoji')).body.msg, 'This endpoint does not accept bot requests.');
  // Administrators may override a built-in emoji's name.
  assert.equal((await upload(admin, 'octopus')).status, 200);

  // Only administrators may add once the setting says so.
  assert.equal((await t.owner.patch('/realm', { can_add_custom_emoji_group: JSON.stringify({ new: groups['role:administrators'] }) })).status, 200);
  const denied = await upload(ann, 'blocked');
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Insufficient permission']);
  assert.equal((await upload(admin, 'allowed')).status, 200);
  assert.equal((await t.owner.patch('/realm', { can_add_custom_emoji_group: JSON.stringify({ new: groups['role:members'] }) })).status, 200);
});

test('custom emoji: reactions use the id as code; deactivation by author or admin keeps old reactions', async () => {
  const emoji = Object.values((await ann.get('/realm/emoji')).body.emoji) as any[];
  const parrot = emoji.find((e) => e.name === 'party_parrot');
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'emoji-room' }], principals: [t.owner.userId, ann.userId, bob.userId] });
  const id = (await ann.post('/messages', { type: 'stream', to: 'emoji-room', topic: 't', content: 'hi' })).body.id;
  assert.equal((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'party_parrot' })).status, 200);
  const wrongName = await ann.post(`/messages/${id}/reactions`, { emoji_name: 'dance', emoji_code: parrot.id, reaction_type: 'realm_emoji' });
  // A vote for an existing reaction takes that reaction's name, whatever the request says.
  assert.equal(wrongName.status, 200);
  const dance = emoji.find((e) => e.name === 'dance');
  const badName = await ann.post(`/messages/${id}/reactions`, { emoji_name: 'party_parrot', emoji_code: dance.id, reaction_type: 'realm_emoji' });
  assert.equal(badName.body.msg, 'Invalid custom emoji name.');
  // The organization's emoji wins over the built-in one of the same name.
  assert.equal((await ann.post(`/messages/${id}/reactions`, { emoji_name: 'octopus' })).status, 200);
  const reactions = (await ann.get(`/messages/${id}`)).body.message.reactions;
  assert.deepEqual(reactions.slice(0, 2), [
    { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji', user_id: bob.userId },
    { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji', user_id: ann.userId },
  ]);
  assert.equal(reactions[2].reaction_type, 'realm_emoji');
  // Removing by name alone looks the code up but keeps remove_reaction's default type, unicode_emoji:
  // a custom emoji's reaction is removed only with reaction_type given.
  const byName = await bob.delete(`/messages/${id}/reactions`, { emoji_name: 'party_parrot' });
  assert.deepEqual([byName.status, byName.body.code], [400, 'REACTION_DOES_NOT_EXIST']);
  assert.equal((await bob.delete(`/messages/${id}/reactions`, { emoji_name: 'party_parrot', reaction_type: 'realm_emoji' })).status, 200);
  assert.equal((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'party_parrot' })).status, 200);

  // Bob did not add it and is no administrator.
  const notMine = await bob.delete('/realm/emoji/party_parrot');
  assert.deepEqual([notMine.status, notMine.body.msg], [400, 'Must be an organization administrator or emoji author']);
  const q = await openQueue(bob, ['realm_emoji']);
  assert.match((await bob.post('/messages/render', { content: ':party_parrot:' })).body.rendered, /<img alt=":party_parrot:"/);
  assert.equal((await ann.delete('/realm/emoji/party_parrot')).status, 200);
  assert.equal((await bob.post('/messages/render', { content: ':party_parrot:' })).body.rendered, '<p>:party_parrot:</p>', 'a deactivated emoji no longer renders');
  const evs = await queuedEvents(bob, q);
  assert.equal(evs[0].realm_emoji[parrot.id].deactivated, true);
  assert.equal((await bob.get('/realm/emoji')).body.emoji[parrot.id].deactivated, true);
  const gone = await ann.delete('/realm/emoji/party_parrot');
  assert.deepEqual([gone.status, gone.body.code, gone.body.msg], [404, 'BAD_REQUEST', "Emoji 'party_parrot' does not exist"]);
  assert.equal((await admin.delete('/realm/emoji/dance')).status, 200);
  // Old reactions stay; new ones with a deactivated emoji are refused.
  assert.equal((await ann.get(`/messages/${id}`)).body.message.reactions.length, 3);
  const id2 = (await ann.post('/messages', { type: 'stream', to: 'emoji-room', topic: 't', content: 'again' })).body.id;
  const deactivated = await bob.post(`/messages/${id2}/reactions`, { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' });
  assert.equal(deactivated.body.msg, 'This custom emoji has been deactivated.');
  assert.equal((await bob.post(`/messages/${id2}/reactions`, { emoji_name: 'party_parrot' })).body.msg, "Emoji 'party_parrot' does not exist");
  // The name is free again.
  assert.equal((await upload(ann, 'party_parrot')).status, 200);
  assert.equal((await rawRequest(t.url, 'GET', '/realm/emoji')).status, 401);
});

test('Unicode emoji data at server_emoji_data_url, without credentials', async () => {
  const state = await ann.post('/register', { fetch_event_types: ['realm'] });
  const url = state.body.server_emoji_data_url as string;
  assert.ok(url.endsWith('/static/generated/emoji/emoji_api.json'));
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { code_to_names: Record<string, string[]> };
  assert.deepEqual(body.code_to_names['1f44d']!.slice(0, 3), ['+1', 'thumbs_up', 'like']);
  assert.equal(body.code_to_names['1f604']![0], 'smile');
  assert.equal(body.code_to_names['1f419']![0], 'octopus');
  assert.ok(Object.keys(body.code_to_names).length > 1500);
});

/** A GIF of 2×1 pixels and two frames, its LZW written with a clear code before each index (3-bit codes). */
function animatedGif(): Buffer {
  const lzw = (indices: number[]) => {
    const codes = [...indices.flatMap((i) => [4, i]), 5];
    const bytes: number[] = [];
    let acc = 0;
    let bits = 0;
    for (const c of codes) {
      acc |= c << bits;
      bits += 3;
      while (bits >= 8) {
        bytes.push(acc & 0xff);
        acc >>= 8;
        bits -= 8;
      }
    }
    if (bits) bytes.push(acc);
    return Buffer.from([2, bytes.length, ...bytes, 0]);
  };
  const frame = (indices: number[]) => Buffer.concat([Buffer.from([0x21, 0xf9, 4, 0, 10, 0, 0, 0]), Buffer.from([0x2c, 0, 0, 0, 0, 2, 0, 1, 0, 0]), lzw(indices)]);
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([2, 0, 1, 0, 0x81, 0, 0]),
    Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]),
    Buffer.from([0x21, 0xff, 11]),
    Buffer.from('NETSCAPE2.0', 'latin1'),
    Buffer.from([3, 1, 0, 0, 0]),
    frame([0, 1]),
    frame([2, 2]),
    Buffer.from([0x3b]),
  ]);
}

test("still_url as Zulip's realm emoji dictionaries give it: null for a still image; for an animation, its first frame as a PNG under images/still/", async () => {
  assert.equal((await upload(ann, 'still_one')).status, 200);
  const gif = await upload(ann, 'moving_one', animatedGif(), 'moving.gif');
  assert.equal(gif.status, 200, JSON.stringify(gif.body));
  const all = Object.values((await bob.get('/realm/emoji')).body.emoji) as any[];
  assert.equal(all.find((e) => e.name === 'still_one').still_url, null);
  const moving = all.find((e) => e.name === 'moving_one');
  const base = /\/([0-9a-f]{8})\.gif$/.exec(moving.source_url)![1];
  assert.equal(moving.still_url, `/user_avatars/${t.realmId}/emoji/images/still/${base}.png`);
  const res = await fetch(new URL(moving.still_url, t.url));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const still = PNGImage.sync.read(Buffer.from(await res.arrayBuffer()));
  assert.deepEqual([still.width, still.height], [2, 1]);
  assert.deepEqual([...still.data], [255, 0, 0, 255, 0, 255, 0, 255], 'the first frame: red, green');
  assert.equal((await fetch(new URL(`/user_avatars/${t.realmId}/emoji/images/still/00000000.png`, t.url))).status, 404);
});
