// The outgoing-webhook worker: takes queued deliveries (outgoing_webhook_events) one lease at a
// time, POSTs each to its bot's endpoint outside any request, and posts what comes back as the
// bot, as Zulip's OutgoingWebhookWorker does: the answer's `content` (Slack: `text`) in the same
// topic or conversation; nothing for `response_not_required`. Timeouts, connection errors and
// 5xx answers are tried again up to MAX_RETRIES times; then, as for any other failure, the bot
// says "Failure! …" where it was called and its owner gets a direct message saying what went wrong.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import { getRealm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getMessages, dmGroupMembers, type MessageRow } from '../store/messages.js';
import { getStreamsByIds } from '../store/channels.js';
import {
  INTERFACE,
  claimWebhookEvent,
  deleteWebhookEvent,
  dueWebhookEvents,
  retryWebhookEventLater,
  servicesOf,
  type BotService,
  type WebhookEvent,
} from '../store/outgoing_webhooks.js';
import { ApiError } from '../errors.js';
import { prepareMessage, type SendTarget } from './messages.js';
import { writeMessage, type PreparedMessage } from './message_write.js';
import { shapeMessage } from '../shapes/messages.js';
import { realmUrl } from '../shapes/realm.js';
import { slackWebhookForm, zulipWebhookPayload } from '../shapes/outgoing_webhooks.js';
import { postWebhook, type WebhookOutcome } from '../lib/outgoing_webhook_http.js';
import { topicNarrow } from '../lib/narrow_urls.js';

/** Zulip's MAX_REQUEST_RETRIES: a delivery fails for good at its fourth failed attempt. */
export const MAX_RETRIES = 3;
/** Deliveries one process works on at once; one slow endpoint does not hold up the others. */
const CONCURRENCY = 8;
/** Deliveries to one bot at once, so one slow endpoint cannot take every slot. */
const PER_BOT_CONCURRENCY = 2;
const CLIENT_NAME = 'OutgoingWebhookResponse';

/** What one delivery needs, loaded once. */
interface Context {
  ev: WebhookEvent;
  realm: Realm;
  bot: User;
  service: BotService;
  row: MessageRow;
  /** The triggering message as the bot is sent it (Markdown content, plus rendered_content). */
  message: Record<string, unknown>;
  /** Where replies go: the message's topic, or its direct-message conversation. */
  target: SendTarget;
  users: Map<number, User>;
}

async function loadContext(services: Services, ev: WebhookEvent): Promise<Context | undefined> {
  const db = services.database.db;
  const realm = await getRealm(db, ev.realm_id);
  const users = await services.cache.users(ev.realm_id);
  const bot = users.get(ev.bot_id);
  const service = (await servicesOf(db, [ev.bot_id])).get(ev.bot_id);
  const [row] = await getMessages(db, ev.realm_id, [ev.message_id]);
  if (!realm || !bot || !bot.is_active || !service || !row) return undefined;
  const streams = row.stream_id !== null ? await getStreamsByIds(db, realm.id, [row.stream_id]) : [];
  const members = row.dm_group_id !== null ? await dmGroupMembers(db, [row.dm_group_id]) : new Map<number, number[]>();
  const linkifiers = row.topic !== '' ? await services.cache.linkifiers(realm.id) : [];
  const shaped = shapeMessage(row, realm, users, services.emailDomains, new Map(streams.map((s) => [s.id, s.name])), members, {
    applyMarkdown: false,
    clientGravatar: false,
    allowEmptyTopicName: true,
    linkifiers,
  });
  const message = { ...shaped, rendered_content: row.rendered_content };
  const target: SendTarget =
    row.stream_id !== null
      ? { kind: 'stream', streamId: row.stream_id, topic: row.topic }
      : { kind: 'direct', userIds: members.get(row.dm_group_id!) ?? [row.sender_id, bot.id] };
  return { ev, realm, bot, service, row, message, target, users };
}

/** Python's repr() of the answer's bytes (b'…'), as Zulip quotes a failed response in its notice. */
function bytesRepr(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? '"' : "'";
  let out = '';
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `b${quote}${out}${quote}`;
}

/** Zulip's message_link_url: the triggering message in its topic or conversation. */
function messageUrl(services: Services, c: Context): string {
  const base = realmUrl(c.realm, services.config.externalUrl);
  if (c.row.stream_id !== null) {
    const name = String(c.message.display_recipient);
    return `${base}/${topicNarrow(c.row.stream_id, name, c.row.topic)}/near/${c.row.id}`;
  }
  const ids = (c.message.display_recipient as Array<{ id: number }>).map((u) => u.id).sort((a, b) => a - b);
  return `${base}/#narrow/dm/${ids.join(',')}-${ids.length >= 3 ? 'group' : 'dm'}/near/${c.row.id}`;
}

/** Zulip's notify_bot_owner: what the owner is told when their bot's endpoint failed. */
function ownerNotice(services: Services, c: Context, o: { status?: number; failure?: string; responseContent?: string }): string {
  let text = `[A message](${messageUrl(services, c)}) to your bot @_**${c.bot.full_name}** triggered an outgoing webhook.`;
  if (o.failure) text += `\n${o.failure}`;
  else if (o.status) text += `\nThe webhook got a response with status code *${o.status}*.`;
  // The payload is cut short so the notice stays a sendable message.
  const payload = o.responseContent && o.responseContent.length > 2000 ? `${o.responseContent.slice(0, 2000)}…` : o.responseContent;
  if (payload) text += `\nThe response contains the following payload:\n\`\`\`\n${payload}\n\`\`\``;
  return text;
}

/** A message by the bot, checked and rendered (Zulip sends a bot's answers without the channel access check). */
function prepareAsBot(services: Services, c: Context, target: SendTarget, content: string): Promise<PreparedMessage> {
  return prepareMessage(services, c.bot, c.realm, { target, content, clientName: CLIENT_NAME, skipChannelAccessCheck: true });
}

/**
 * Posts the bot's messages (a reply, or a failure notice and the owner's message) and removes the
 * delivery row in one transaction, so a delivery's messages are written once even if another
 * process took the row over. A message that cannot be sent (the channel was archived, the owner
 * deactivated) is left out.
 */
async function finish(services: Services, c: Context, messages: Array<{ target: SendTarget; content: string } | PreparedMessage>): Promise<void> {
  const prepared: PreparedMessage[] = [];
  for (const m of messages) {
    if ('sender' in m) {
      prepared.push(m);
      continue;
    }
    try {
      prepared.push(await prepareAsBot(services, c, m.target, m.content));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      console.warn(`outgoing webhook ${c.ev.id}: bot ${c.bot.id} could not post: ${err.message}`);
    }
  }
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await deleteWebhookEvent(tx, c.ev.id))) return;
    for (const p of prepared) await writeMessage(services, tx, onCommit, p);
  });
}

/** Zulip's fail_with_message, then (unless told otherwise) notify_bot_owner. */
async function fail(services: Services, c: Context, inConversation: string, notice?: { status?: number; failure?: string; responseContent?: string }): Promise<void> {
  const messages = [{ target: c.target, content: `Failure! ${inConversation}` }];
  const owner = c.bot.bot_owner_id !== null ? c.users.get(c.bot.bot_owner_id) : undefined;
  if (notice && owner?.is_active) messages.push({ target: { kind: 'direct', userIds: [owner.id] }, content: ownerNotice(services, c, notice) });
  await finish(services, c, messages);
}

/** The reply an endpoint's 2xx answer asks for: content, nothing, or why it is unusable. */
function replyOf(service: BotService, text: string): { content?: string } | { error: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: 'Invalid JSON in response' };
  }
  // Old Zulip Botservers answered a JSON "" for "no response".
  if (body === '') return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'Invalid response format' };
  const o = body as Record<string, unknown>;
  let content: unknown;
  if (service.interface === INTERFACE.slack) {
    content = o.text;
  } else {
    if (o.response_not_required === true) return {};
    content = 'response_string' in o ? o.response_string : o.content;
  }
  if (content === undefined || content === null) return {};
  const s = typeof content === 'string' ? content : JSON.stringify(content);
  return s.trim() === '' ? {} : { content: s };
}

async function retryOrFail(services: Services, c: Context, failure: string, finalFailure: () => Promise<void>): Promise<void> {
  const failures = c.ev.failures + 1;
  if (failures <= MAX_RETRIES) {
    await services.database.transaction((tx) => retryWebhookEventLater(tx, c.ev.id, failures, Date.now() + services.config.outgoingWebhooks.retryDelayMs));
    return;
  }
  console.warn(`outgoing webhook ${c.ev.id}: bot ${c.bot.id} failed ${failures} times: ${failure}`);
  await finalFailure();
}

async function handleOutcome(services: Services, c: Context, outcome: WebhookOutcome): Promise<void> {
  const timeoutSeconds = services.config.outgoingWebhooks.timeoutMs / 1000;
  switch (outcome.kind) {
    case 'aborted':
      // Shutting down: hand the row back untouched, for the next process (or this one restarted).
      return services.database.transaction((tx) => retryWebhookEventLater(tx, c.ev.id, c.ev.failures, Date.now()));
    case 'timeout': {
      const failure = `Request timed out after ${timeoutSeconds} seconds.`;
      return retryOrFail(services, c, failure, () => fail(services, c, 'Bot is unavailable', { failure }));
    }
    case 'connection': {
      const failure = 'A connection error occurred. Is my bot server down?';
      return retryOrFail(services, c, failure, () => fail(services, c, 'Bot is unavailable', { failure }));
    }
    case 'error':
      return fail(services, c, `An exception of type *${outcome.name}* occurred for message \`${c.row.content}\`! See the Zulip server logs for more information.`, {
        failure: `When trying to send a request to the webhook service, an exception of type ${outcome.name} occurred:\n\`\`\`\n${outcome.detail}\n\`\`\``,
      });
    case 'response': {
      const { status, text } = outcome;
      if (status >= 200 && status < 300) {
        const reply = replyOf(c.service, text);
        if ('error' in reply) {
          return fail(services, c, reply.error, {
            failure: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${reply.error}`,
            responseContent: `'${text}'`,
          });
        }
        if (reply.content === undefined) return finish(services, c, []);
        let prepared: PreparedMessage;
        try {
          prepared = await prepareAsBot(services, c, c.target, reply.content);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          return fail(services, c, err.message, {
            failure: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${err.message}`,
            responseContent: `'${text}'`,
          });
        }
        return finish(services, c, [prepared]);
      }
      const finalFailure = () => fail(services, c, `Third party responded with ${status}`, { status, responseContent: text ? bytesRepr(text) : undefined });
      // A server error may pass, so it is retried like a timeout (Zulip reports a 5xx at once);
      // anything else (a 4xx, a redirect) will not, and is reported at once.
      if (status >= 500) return retryOrFail(services, c, `status ${status}`, finalFailure);
      return finalFailure();
    }
  }
}

/** One claimed delivery, start to end. */
async function deliver(services: Services, ev: WebhookEvent, stop: AbortSignal): Promise<void> {
  const c = await loadContext(services, ev);
  if (!c) {
    // The bot, its service or the message is gone: nothing to deliver.
    await services.database.transaction((tx) => deleteWebhookEvent(tx, ev.id));
    return;
  }
  if (c.service.interface === INTERFACE.slack && c.row.stream_id === null) {
    return fail(services, c, "Slack outgoing webhooks don't support direct messages.");
  }
  const body =
    c.service.interface === INTERFACE.slack
      ? { form: slackWebhookForm(c.bot, c.service, c.message, ev.trigger, c.realm.id, new URL(realmUrl(c.realm, services.config.externalUrl)).host) }
      : { json: zulipWebhookPayload(c.bot, services.emailDomains, c.service, c.message, ev.trigger) };
  const outcome = await postWebhook(c.service.base_url, body, services.config.outgoingWebhooks.timeoutMs, stop);
  await handleOutcome(services, c, outcome);
}

export interface WebhookWorker {
  stop(): Promise<void>;
  /** Polls now (tests; the wake-up after a send does the same). */
  poke(): void;
}

/**
 * Starts this process's worker: it polls the queue (and wakes when a message here queued work),
 * claims due rows with a lease a little longer than a request may take, and runs up to
 * CONCURRENCY deliveries at once. Sending a message never waits for any of it.
 */
export function startOutgoingWebhooks(services: Services): WebhookWorker {
  const { pollMs, timeoutMs } = services.config.outgoingWebhooks;
  const inFlight = new Set<Promise<void>>();
  const perBot = new Map<number, number>();
  let scanning: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const stopping = new AbortController();

  const scan = async () => {
    if (inFlight.size >= CONCURRENCY) return;
    const now = Date.now();
    // A wider window than the free slots, so a bot whose endpoint is slow (at its own cap) does
    // not keep other bots' deliveries waiting behind its rows.
    const due = await dueWebhookEvents(services.database.db, now, CONCURRENCY * 8);
    for (const ev of due) {
      if (stopped || inFlight.size >= CONCURRENCY) return;
      if ((perBot.get(ev.bot_id) ?? 0) >= PER_BOT_CONCURRENCY) continue;
      const claimed = await services.database.transaction((tx) => claimWebhookEvent(tx, ev, now, now + timeoutMs + 60_000));
      if (!claimed) continue;
      perBot.set(ev.bot_id, (perBot.get(ev.bot_id) ?? 0) + 1);
      const p: Promise<void> = deliver(services, ev, stopping.signal)
        .catch((err) => console.error(`outgoing webhook ${ev.id}:`, err))
        .finally(() => {
          inFlight.delete(p);
          const left = (perBot.get(ev.bot_id) ?? 1) - 1;
          if (left > 0) perBot.set(ev.bot_id, left);
          else perBot.delete(ev.bot_id);
          // A slot is free: more may be waiting.
          if (!stopped) poke();
        });
      inFlight.add(p);
    }
  };

  const poke = () => {
    if (stopped) return;
    if (scanning) {
      again = true;
      return;
    }
    scanning = scan()
      .catch((err) => console.error('outgoing webhooks:', err))
      .finally(() => {
        scanning = null;
        if (again) {
          again = false;
          poke();
        }
      });
  };

  const timer = setInterval(poke, pollMs);
  timer.unref();
  const worker: WebhookWorker = {
    poke,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (services.jobs.outgoingWebhooks === worker) services.jobs.outgoingWebhooks = null;
      if (scanning) await scanning;
      // Requests under way are abandoned and their rows released, so shutting down is quick.
      stopping.abort();
      await Promise.all([...inFlight]);
    },
  };
  // Woken after a commit that queued a delivery here (actions/outgoing_webhook_triggers.ts).
  services.jobs.outgoingWebhooks = worker;
  return worker;
}
