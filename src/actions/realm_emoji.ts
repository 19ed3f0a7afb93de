// Custom emoji: members of can_add_custom_emoji_group upload images under a name; the author or an
// administrator deactivates them. Images live on local disk under the uploads folder and are
// served at Zulip's /user_avatars/{realm_id}/emoji/images/{file}. Every change sends the whole
// set to the organization in a realm_emoji event.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { ROLE } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { activeRealmEmojiByName, deactivateRealmEmojiRow, insertRealmEmoji, listRealmEmoji, type RealmEmojiRow } from '../store/emoji.js';
import { isUserInGroup } from '../store/cache.js';
import { unicodeEmojiByName } from '../lib/emoji.js';
import { ApiError, BadRequest } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { onConflict } from '../store/conflicts.js';
import { requireMemberOrAdmin } from '../access/roles.js';

/** Zulip's MAX_EMOJI_FILE_SIZE_MIB default. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

const IMAGE_TYPES: Array<{ ext: string; test: (b: Buffer) => boolean; animated: (b: Buffer) => boolean }> = [
  { ext: '.png', test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), animated: (b) => b.includes('acTL') },
  { ext: '.gif', test: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8', animated: (b) => b.includes('NETSCAPE2.0') },
  { ext: '.jpeg', test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff, animated: () => false },
  { ext: '.webp', test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP', animated: (b) => b.includes('ANIM') },
];

export function emojiFolder(uploadsDir: string, realmId: number): string {
  return join(uploadsDir, String(realmId), 'emoji', 'images');
}

export function emojiSourceUrl(realmId: number, fileName: string): string {
  return `/user_avatars/${realmId}/emoji/images/${fileName}`;
}

/** Where an animated emoji's still image is kept: Zulip's STILL_PATH_ID_TEMPLATE, always ".png". */
export function emojiStillFileName(fileName: string): string {
  return fileName.replace(/\.[a-z]+$/, '') + '.png';
}

/** The API's dictionary of custom emoji, keyed by id (deactivated ones included). */
export function realmEmojiDict(rows: RealmEmojiRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of rows) {
    out[String(e.id)] = {
      id: String(e.id),
      name: e.name,
      source_url: emojiSourceUrl(e.realm_id, e.file_name!),
      // Zulip's get_realm_emoji_dicts: the still image's address for an animated emoji, else null.
      still_url: e.is_animated ? `/user_avatars/${e.realm_id}/emoji/images/still/${emojiStillFileName(e.file_name!)}` : null,
      deactivated: e.deactivated,
      author_id: e.author_id,
    };
  }
  return out;
}

export async function realmEmojiState(db: Executor, realmId: number): Promise<Record<string, unknown>> {
  return realmEmojiDict(await listRealmEmoji(db, realmId));
}

/** Zulip's rule: lowercase letters, digits, dashes and underscores, ending with a letter or digit. */
export function checkEmojiName(name: string): void {
  if (!name) throw new BadRequest('Emoji name is missing');
  if (/^[0-9a-z\-_]+$/.test(name)) {
    if (/[-_]$/.test(name)) throw new BadRequest('Emoji names must end with either a letter or digit.');
    return;
  }
  throw new BadRequest('Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.');
}

function isAdmin(u: User): boolean {
  return u.role <= ROLE.administrator;
}

async function activeUserIds(services: Services, realm: Realm): Promise<number[]> {
  return [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active).map((u) => u.id);
}

/** After a change: the whole set to everyone, and the render cache dropped (in every process). */
async function publishAll(services: Services, tx: Executor, onCommit: (hook: () => void) => void, realm: Realm, userIds: number[]): Promise<void> {
  const state = await realmEmojiState(tx, realm.id);
  onCommit(() => services.cache.invalidateRealmEmoji(realm.id));
  publishAfterCommit(services, onCommit, {
    realmId: realm.id,
    userIds,
    event: { type: 'realm_emoji', op: 'update', realm_emoji: state },
  });
}

export function emojiTooLarge(): BadRequest {
  return new BadRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
}

export async function addRealmEmoji(services: Services, user: User, realm: Realm, rawName: string, files: Array<{ path: string; size: number }>): Promise<void> {
  // upload_emoji is @require_member_or_admin: guests and bots are refused before the name is looked at.
  requireMemberOrAdmin(user);
  const name = rawName.trim().replace(/ /g, '_');
  checkEmojiName(name);
  const graph = await services.cache.groupGraph(realm.id);
  if (!isUserInGroup(graph, user.id, realm.settings.can_add_custom_emoji_group)) throw new BadRequest('Insufficient permission');
  if (await activeRealmEmojiByName(services.database.db, realm.id, name)) throw new BadRequest('A custom emoji with this name already exists.');
  if (files.length !== 1) throw new BadRequest('You must upload exactly one file.');
  if (unicodeEmojiByName(name) && !isAdmin(user)) throw new BadRequest('Only administrators can override built-in emoji.');
  const upload = files[0]!;
  if (upload.size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) throw emojiTooLarge();
  // At most a few MiB (checked above): read whole, to check and store the image.
  const file = { data: await readFile(upload.path) };
  const kind = IMAGE_TYPES.find((t) => t.test(file.data));
  if (!kind) throw new BadRequest('Invalid image format');

  const folder = emojiFolder(services.config.uploadsDir, realm.id);
  const fileName = randomBytes(4).toString('hex') + kind.ext;
  // An animation whose first frame cannot be read is kept as a plain image, without still_url.
  // Its decoders (omggif, pngjs) load on the first animated upload: an idle server does not carry them.
  const still = kind.animated(file.data) ? (await import('../lib/emoji_still.js')).stillImage(file.data) : undefined;
  await mkdir(join(folder, 'still'), { recursive: true });
  await writeFile(join(folder, fileName), file.data);
  if (still) await writeFile(join(folder, 'still', emojiStillFileName(fileName)), still);
  const audience = await activeUserIds(services, realm);
  try {
    await onConflict(services.database.transaction(async (tx, onCommit) => {
      const taken = await activeRealmEmojiByName(tx, realm.id, name);
      if (taken) throw new BadRequest('A custom emoji with this name already exists.');
      await insertRealmEmoji(tx, { realm_id: realm.id, name, author_id: user.id, file_name: fileName, is_animated: still !== undefined });
      await publishAll(services, tx, onCommit, realm, audience);
    }), () => new BadRequest('A custom emoji with this name already exists.'));
  } catch (err) {
    await unlink(join(folder, fileName)).catch(() => undefined);
    if (still) await unlink(join(folder, 'still', emojiStillFileName(fileName))).catch(() => undefined);
    throw err;
  }
}

export async function deactivateRealmEmoji(services: Services, user: User, realm: Realm, name: string): Promise<void> {
  const audience = await activeUserIds(services, realm);
  await services.database.transaction(async (tx, onCommit) => {
    const emoji = await activeRealmEmojiByName(tx, realm.id, name);
    // Zulip answers a missing emoji with 404 (feature level 190) and its usual BAD_REQUEST code.
    if (!emoji) throw new ApiError(`Emoji '${name}' does not exist`, 'BAD_REQUEST', 404);
    if (!isAdmin(user) && emoji.author_id !== user.id) throw new BadRequest('Must be an organization administrator or emoji author');
    await deactivateRealmEmojiRow(tx, emoji.id);
    await publishAll(services, tx, onCommit, realm, audience);
  });
}
