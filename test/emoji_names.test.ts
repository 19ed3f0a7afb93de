// The Unicode emoji table: Zulip's names, aliases and codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalNameForCode, isKnownUnicodeCode, unicodeEmojiByName, ZULIP_EXTRA_EMOJI } from '../src/lib/emoji.js';

test('emoji: Zulip names resolve to codes, aliases to the canonical name', () => {
  assert.deepEqual(unicodeEmojiByName('octopus'), { code: '1f419', name: 'octopus' });
  assert.deepEqual(unicodeEmojiByName('thumbs_up'), { code: '1f44d', name: '+1' });
  assert.deepEqual(unicodeEmojiByName('+1'), { code: '1f44d', name: '+1' });
  assert.deepEqual(unicodeEmojiByName('smile'), { code: '1f604', name: 'smile' });
  assert.deepEqual(unicodeEmojiByName('slight_smile'), { code: '1f642', name: 'slight_smile' });
  assert.equal(unicodeEmojiByName('woman_shrugging')?.code, '1f937-200d-2640', "iamcal's hyphens are Zulip's underscores");
  assert.equal(unicodeEmojiByName('skin-tone-2'), undefined, 'skin-tone modifiers are no emoji of their own');
  assert.deepEqual(unicodeEmojiByName('relaxed'), { code: '263a', name: 'smiling_face' });
  // A canonical name wins over another emoji's alias of the same spelling.
  assert.equal(unicodeEmojiByName('secret')?.code, '1f5dd');
  assert.equal(unicodeEmojiByName('stuck_out_tongue')?.code, '1f61b');
  assert.deepEqual(unicodeEmojiByName('heart'), { code: '2764', name: 'heart' });
  assert.deepEqual(unicodeEmojiByName('tada'), { code: '1f389', name: 'tada' });
  assert.equal(unicodeEmojiByName('asterisk')?.code, '002a-20e3');
  assert.equal(unicodeEmojiByName('no_such_emoji_name'), undefined);
  // Emoji outside Zulip's renamed set keep iamcal's names.
  assert.equal(unicodeEmojiByName('pizza')?.code, '1f355');
  assert.equal(canonicalNameForCode('1f642'), 'slight_smile');
  assert.equal(canonicalNameForCode('1f604'), 'smile');
  assert.equal(canonicalNameForCode('1f44d'), '+1');
  assert.equal(unicodeEmojiByName('like')?.code, '1f44d');
  assert.equal(unicodeEmojiByName('hammer_and_wrench')?.name, 'working_on_it');
  assert.ok(isKnownUnicodeCode('1f419'));
  assert.ok(isKnownUnicodeCode('1f1fa-1f1f8'));
  assert.ok(!isKnownUnicodeCode('zulip'));
  assert.ok(!isKnownUnicodeCode('1F419'));
  assert.deepEqual(ZULIP_EXTRA_EMOJI, { name: 'zulip', code: 'zulip' });
});
