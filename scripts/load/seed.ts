// Seeds a load-test organization straight through the store (setup is not what is measured):
// N members, C public channels, each member subscribed to a few of them.
import { openDatabase } from '../../src/store/db.js';
import { createOrganization } from '../../src/actions/realms.js';
import { insertAccount } from '../../src/actions/users.js';
import { getSystemGroupIds } from '../../src/store/groups.js';
import { insertStream, upsertSubscriptions, STREAM_GROUP_SETTINGS, type NewStream } from '../../src/store/channels.js';
import { ROLE } from '../../src/store/users.js';
import { nowSeconds } from '../../src/services.js';

export interface LoadUser {
  id: number;
  email: string;
  apiKey: string;
  /** Channel ids this user is subscribed to. */
  channels: number[];
}

export interface LoadOrg {
  users: LoadUser[];
  /** Channel id → subscriber count. */
  channelIds: number[];
  channelNames: Map<number, string>;
}

/** Channels each member joins: with 1,000 users and 200 channels, 50 subscribers a channel. */
export const CHANNELS_PER_USER = 10;

export async function seedOrg(databaseUrl: string, nUsers: number, nChannels: number): Promise<LoadOrg> {
  const database = await openDatabase(databaseUrl);
  try {
    const org = await createOrganization(database, { name: 'Load', ownerEmail: 'owner@load.example.com', ownerPassword: 'load-password-1' });
    const users: LoadUser[] = [];
    await database.transaction(async (tx) => {
      for (let i = 0; i < nUsers; i++) {
        const a = await insertAccount(tx, { realmId: org.realm_id, email: `user${i}@load.example.com`, fullName: `Load User ${i}`, role: ROLE.member, passwordHash: null, now: nowSeconds() });
        users.push({ id: a.id, email: a.email, apiKey: a.api_key, channels: [] });
      }
    });
    const groups = await getSystemGroupIds(database.db, org.realm_id);
    const settings = Object.fromEntries(STREAM_GROUP_SETTINGS.map((k) => [k, groups['role:nobody']])) as Record<(typeof STREAM_GROUP_SETTINGS)[number], number>;
    settings.can_send_message_group = groups['role:everyone'];
    settings.can_create_topic_group = groups['role:everyone'];
    settings.can_administer_channel_group = groups['role:administrators'];
    const channelIds: number[] = [];
    const channelNames = new Map<number, string>();
    const perUser = Math.min(CHANNELS_PER_USER, nChannels);
    const stride = Math.max(1, Math.floor(nChannels / perUser));
    await database.transaction(async (tx) => {
      for (let c = 0; c < nChannels; c++) {
        const name = `load ${c}`;
        const s: NewStream = {
          realm_id: org.realm_id,
          name,
          description: '',
          rendered_description: '',
          invite_only: false,
          is_web_public: false,
          history_public_to_subscribers: true,
          date_created: nowSeconds(),
          creator_id: org.user_id,
          message_retention_days: null,
          is_archived: false,
          folder_id: null,
          topics_policy: 'inherit',
          ...settings,
        };
        const id = await insertStream(tx, s);
        channelIds.push(id);
        channelNames.set(id, name);
      }
      // User i joins channels i, i + stride, i + 2·stride, … (mod C): every channel gets about
      // N·perUser/C members, spread over the whole organization.
      const members = new Map<number, number[]>(channelIds.map((id) => [id, []]));
      users.forEach((u, i) => {
        for (let j = 0; j < perUser; j++) {
          const id = channelIds[(i + j * stride) % nChannels]!;
          if (u.channels.includes(id)) continue;
          u.channels.push(id);
          members.get(id)!.push(u.id);
        }
      });
      for (const [id, userIds] of members) if (userIds.length) await upsertSubscriptions(tx, org.realm_id, id, userIds, () => '#76ce90');
    });
    return { users, channelIds, channelNames };
  } finally {
    await database.close();
  }
}

/** Every stored message's id and content (for the exactly-once check). */
export async function storedMessages(databaseUrl: string): Promise<{ id: number; content: string }[]> {
  const database = await openDatabase(databaseUrl);
  try {
    const rows = await database.db.selectFrom('messages').select(['id', 'content']).execute();
    return rows.map((r) => ({ id: Number(r.id), content: String(r.content) }));
  } finally {
    await database.close();
  }
}
