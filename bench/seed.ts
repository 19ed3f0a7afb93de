// Seeds the benchmark database directly through the store (setup is not what is measured):
// an organization with a 100-subscriber channel, and a second organization of 1,000 users and 200
// channels (for /register) that also holds a 100,000-message channel (for topic narrows and the
// web client's figures).
import { openDatabase, type Database } from '../src/store/db.js';
import { createOrganization } from '../src/actions/realms.js';
import { insertAccount } from '../src/actions/users.js';
import { getSystemGroupIds } from '../src/store/groups.js';
import { insertStream, streamRecipientIds, upsertSubscriptions, STREAM_GROUP_SETTINGS, type NewStream } from '../src/store/channels.js';
import { ROLE } from '../src/store/users.js';
import { nowSeconds } from '../src/services.js';

export interface Account {
  email: string;
  api_key: string;
  id: number;
}

export interface Seeded {
  sender: Account;
  subscribers: Account[];
  channelName: string;
  reader: Account;
  /** Posts into the history channel (the big organization's owner). */
  historySender: Account;
  historyChannelName: string;
  historyChannelId: number;
  historyMessages: number;
  historyTopics: number;
  bigOrgUser: Account;
  bigOrgUsers: number;
  bigOrgChannels: number;
}

export async function users(database: Database, realmId: number, n: number, prefix: string): Promise<Account[]> {
  const out: Account[] = [];
  await database.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const a = await insertAccount(tx, { realmId, email: `${prefix}${i}@bench.example.com`, fullName: `${prefix} ${i}`, role: ROLE.member, passwordHash: null, now: nowSeconds() });
      out.push({ email: a.email, api_key: a.api_key, id: a.id });
    }
  });
  return out;
}

export async function channel(database: Database, realmId: number, name: string, creatorId: number): Promise<number> {
  const groups = await getSystemGroupIds(database.db, realmId);
  const settings = Object.fromEntries(STREAM_GROUP_SETTINGS.map((k) => [k, groups['role:nobody']])) as Record<(typeof STREAM_GROUP_SETTINGS)[number], number>;
  settings.can_send_message_group = groups['role:everyone'];
  settings.can_create_topic_group = groups['role:everyone'];
  settings.can_administer_channel_group = groups['role:administrators'];
  const s: NewStream = {
    realm_id: realmId,
    name,
    description: '',
    rendered_description: '',
    invite_only: false,
    is_web_public: false,
    history_public_to_subscribers: true,
    date_created: nowSeconds(),
    creator_id: creatorId,
    message_retention_days: null,
    is_archived: false,
    folder_id: null,
    topics_policy: 'inherit',
    ...settings,
  };
  return database.transaction((tx) => insertStream(tx, s));
}

export async function subscribe(database: Database, realmId: number, streamId: number, userIds: number[]) {
  await database.transaction((tx) => upsertSubscriptions(tx, realmId, streamId, userIds, () => '#76ce90'));
}

export async function seed(databaseUrl: string): Promise<Seeded> {
  const database = await openDatabase(databaseUrl);
  try {
    const org = await createOrganization(database, { name: 'Bench', ownerEmail: 'owner@bench.example.com', ownerPassword: 'bench-password-1' });
    const sender: Account = { email: org.email, api_key: org.api_key, id: org.user_id };
    const members = await users(database, org.realm_id, 99, 'member');
    const benchId = await channel(database, org.realm_id, 'bench', sender.id);
    await subscribe(database, org.realm_id, benchId, [sender.id, ...members.map((m) => m.id)]);

    // A bigger organization for /register.
    const big = await createOrganization(database, { name: 'Big', ownerEmail: 'owner@big.example.com', ownerPassword: 'bench-password-2' });
    const bigUsers = await users(database, big.realm_id, 999, 'big');
    const everyone = [big.user_id, ...bigUsers.map((u) => u.id)];
    const bigOrgChannels = 200;
    for (let c = 0; c < bigOrgChannels; c++) {
      const id = await channel(database, big.realm_id, `channel ${c}`, big.user_id);
      // 50 subscribers a channel; the measured user is in every tenth channel.
      const subs = everyone.filter((_, i) => (i + c) % 20 === 0);
      if (c % 10 === 0 && !subs.includes(bigUsers[0]!.id)) subs.push(bigUsers[0]!.id);
      await subscribe(database, big.realm_id, id, subs);
    }
    // A channel with a long history in the big organization, read through topic narrows (and by
    // the web client's figures, whose reader sees the organization's 1,000 people and its channels).
    const reader = bigUsers[0]!;
    const historySender: Account = { email: big.email, api_key: big.api_key, id: big.user_id };
    const historyId = await channel(database, big.realm_id, 'history', historySender.id);
    await subscribe(database, big.realm_id, historyId, [reader.id, historySender.id]);
    const recipientId = (await streamRecipientIds(database.db, [historyId])).get(historyId)!;
    const historyMessages = 100_000;
    const historyTopics = 100;
    const chunk = 500;
    const now = nowSeconds();
    for (let start = 0; start < historyMessages; start += chunk) {
      await database.transaction(async (tx) => {
        const rows = Array.from({ length: chunk }, (_, i) => ({
          realm_id: big.realm_id,
          sender_id: historySender.id,
          recipient_type: 'stream',
          recipient_id: recipientId,
          stream_id: historyId,
          dm_group_id: null,
          topic: `topic ${(start + i) % historyTopics}`,
          content: `history message ${start + i}`,
          rendered_content: `<p>history message ${start + i}</p>`,
          date_sent: now,
          last_edit_time: null,
          sending_client: 'bench',
          edit_history: null,
        }));
        const ids = await tx.insertInto('messages').values(rows).returning('id').execute();
        await tx
          .insertInto('user_messages')
          .values(ids.flatMap((r) => [
            { user_id: reader.id, message_id: r.id, flags: 1 },
            { user_id: historySender.id, message_id: r.id, flags: 1 },
          ]))
          .execute();
      });
    }

    return {
      sender,
      subscribers: [sender, ...members],
      channelName: 'bench',
      reader,
      historySender,
      historyChannelName: 'history',
      historyChannelId: historyId,
      historyMessages,
      historyTopics,
      bigOrgUser: bigUsers[0]!,
      bigOrgUsers: everyone.length,
      bigOrgChannels,
    };
  } finally {
    await database.close();
  }
}
