// Weekly digest emails, as Zulip sends them: on the organization's digest_weekday (when its
// digest_emails_enabled is on), people who asked for them (enable_digest_emails) and have been
// away get "Zulip digest for <organization>": the busiest topics of the week in their channels,
// with who spoke and how much, and the public channels created that week. One a week per person
// (a claim in the transaction that queues the email, so several processes send it once).
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import { listRealms, type Realm } from '../store/realms.js';
import { getStreamsByIds } from '../store/channels.js';
import { busiestTopics, claimDigest, lastDigests, newPublicChannels, subscribedChannels, topicOpening, type BusyTopic } from '../store/digest.js';
import { lastActiveTimes } from '../store/missed_messages.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { composeEmail, type Block } from '../lib/email_templates.js';
import { escapeHtml } from '../lib/html.js';
import { channelNarrow, topicNarrow } from '../lib/narrow_urls.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';
import { realmUrl } from '../shapes/realm.js';
import { queueMails } from './email.js';

const DAY = 86400;
const WEEK = 7 * DAY;
/** Away: not active for this long (Zulip's digest cutoff). */
const AWAY_SECONDS = 5 * DAY;
const HOT_TOPICS = 4;
const NEW_CHANNELS = 5;
const TEASER_MESSAGES = 2;

/** Zulip's weekday numbering (0 = Monday) of a UNIX time, in UTC. */
export function zulipWeekday(seconds: number): number {
  return (new Date(seconds * 1000).getUTCDay() + 6) % 7;
}

async function realmDigests(services: Services, realm: Realm, now: number): Promise<number> {
  const db = services.database.db;
  const users = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active && !u.is_bot && userSettingsOf(u.settings).enable_digest_emails);
  if (users.length === 0) return 0;
  const ids = users.map((u) => u.id);
  const last = await lastDigests(db, ids);
  const active = await lastActiveTimes(db, ids);
  const due = users.filter((u) => (last.get(u.id) ?? 0) < now - 6 * DAY && (active.get(u.id) ?? 0) < now - AWAY_SECONDS);
  if (due.length === 0) return 0;
  const since = now - WEEK;
  const topics = await busiestTopics(db, realm.id, since, 50);
  const channels = (await newPublicChannels(db, realm.id, since)).slice(0, NEW_CHANNELS);
  if (topics.length === 0 && channels.length === 0) return 0;
  const subs = await subscribedChannels(db, due.map((u) => u.id));
  const streams = new Map((await getStreamsByIds(db, realm.id, [...new Set(topics.map((t) => t.stream_id))])).map((s) => [s.id, s]));
  const names = await services.cache.users(realm.id);
  const base = realmUrl(realm, services.config.externalUrl);
  const openings = new Map<BusyTopic, Awaited<ReturnType<typeof topicOpening>>>();
  let sent = 0;
  for (const user of due) {
    const mine = subs.get(user.id) ?? new Set<number>();
    const hot = topics.filter((t) => mine.has(t.stream_id) && streams.get(t.stream_id)).slice(0, HOT_TOPICS);
    if (hot.length === 0 && channels.length === 0) continue;
    const blocks: Block[] = [{ p: `Hi ${user.full_name}, here is what happened in ${realm.name} this week.` }];
    if (hot.length) {
      blocks.push({ html: '<h2>Hot conversations</h2>', text: 'HOT CONVERSATIONS' });
      for (const t of hot) {
        if (!openings.has(t)) openings.set(t, await topicOpening(db, t.stream_id, t.topic, since, TEASER_MESSAGES));
        const stream = streams.get(t.stream_id)!;
        const link = `${base}/${topicNarrow(stream.id, stream.name, t.topic)}`;
        const teaser = openings.get(t)!;
        const summary = `${t.messages} message${t.messages === 1 ? '' : 's'} from ${t.senders} ${t.senders === 1 ? 'person' : 'people'}`;
        blocks.push({
          html:
            `<h3><a href="${escapeHtml(link)}">#${escapeHtml(stream.name)} &gt; ${escapeHtml(t.topic)}</a></h3><p>${escapeHtml(summary)}</p>` +
            teaser.map((m) => `<blockquote><b>${escapeHtml(names.get(m.sender_id)?.full_name ?? 'Unknown user')}</b>: ${escapeHtml(m.content.slice(0, 300))}</blockquote>`).join(''),
          text: `#${stream.name} > ${t.topic} (${summary})\n${teaser.map((m) => `  ${names.get(m.sender_id)?.full_name ?? 'Unknown user'}: ${m.content.slice(0, 300)}`).join('\n')}\n${link}`,
        });
      }
    }
    if (channels.length) {
      blocks.push({ html: '<h2>New channels</h2>', text: 'NEW CHANNELS' });
      blocks.push({
        html: `<ul>${channels.map((c) => `<li><a href="${escapeHtml(`${base}/${channelNarrow(c.id, c.name)}`)}">#${escapeHtml(c.name)}</a>${c.description ? ` — ${escapeHtml(c.description)}` : ''}</li>`).join('')}</ul>`,
        text: channels.map((c) => `#${c.name}${c.description ? ` — ${c.description}` : ''}\n${base}/${channelNarrow(c.id, c.name)}`).join('\n'),
      });
    }
    blocks.push({ p: `Manage email preferences: ${base}/#settings/notifications` });
    const mail = composeEmail(`Zulip digest for ${realm.name}`, blocks, `You get this weekly digest because you have not visited ${realm.name} lately.`);
    const claimed = await services.database.transaction(async (tx, onCommit) => {
      if (!(await claimDigest(tx, user.id, now, now - 6 * DAY))) return false;
      await queueMails(services, tx, onCommit, [{ realmId: realm.id, kind: 'digest', to: user.email, ...mail }]);
      return true;
    });
    if (claimed) sent++;
  }
  return sent;
}

/** One pass: every organization whose digest day it is. Returns how many digests were queued. */
export async function sendDigests(services: Services, now = nowSeconds(), self?: Periodic): Promise<number> {
  let sent = 0;
  for (const realm of await listRealms(services.database.db)) {
    if (self?.stopped) break;
    if (realm.deactivated || !realm.settings.digest_emails_enabled || realm.settings.digest_weekday !== zulipWeekday(now)) continue;
    sent += await realmDigests(services, realm, now);
  }
  return sent;
}

export function startDigests(services: Services, intervalMs = 10 * 60_000): Periodic {
  return runPeriodically('weekly digests', intervalMs, (self) => sendDigests(services, nowSeconds(), self));
}
