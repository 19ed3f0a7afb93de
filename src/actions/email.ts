// Every email goes through here: queued as rows of the email outbox inside the transaction that
// causes it (so a rolled-back action sends nothing, and a crash after the commit loses nothing),
// then sent by the outbox runner, which each process runs. A row is sent by the one process that
// claims it; an SMTP failure is retried later with a doubling delay, up to MAX_ATTEMPTS.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import { claimOutboxMail, deleteSentOutboxMails, dueOutboxMails, insertOutboxMails, markOutboxFailure, markOutboxSent, outboxMailsByIds, type OutboxMail, type OutboxRow } from '../store/email_outbox.js';
import { sendMail } from '../lib/mail.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';

const MAX_ATTEMPTS = 6;
/** How long a claim holds a row: longer than any SMTP exchange (nodemailer's own timeouts are shorter). */
const CLAIM_MS = 5 * 60_000;
/** Sent rows are kept this long (for the operator's inspection), then deleted. */
const KEEP_SENT_MS = 7 * 86400_000;

/** Queues mails in the caller's transaction; the runner is woken once the transaction commits. Returns the rows' ids. */
export async function queueMails(services: Services, tx: Transaction<DB>, onCommit: (hook: () => void) => void, mails: OutboxMail[]): Promise<number[]> {
  if (mails.length === 0) return [];
  const ids = await insertOutboxMails(tx, mails, Date.now());
  onCommit(() => services.jobs.mail?.runSoon());
  return ids;
}

/**
 * Sends queued rows right away, in the caller's request (for mail a person has just asked for and
 * expects, such as an invitation): through the same claim, so the runner never sends them twice;
 * a failure is left to the runner's retries, never to the caller.
 */
export async function sendQueuedNow(services: Services, ids: number[]): Promise<void> {
  for (const row of await outboxMailsByIds(services.database.db, ids)) await sendOne(services, row);
}

async function sendOne(services: Services, row: OutboxRow): Promise<boolean> {
  // Every write in a transaction of its own: on SQLite only the writer connection may write.
  const write = (fn: (tx: Transaction<DB>) => Promise<unknown>) => services.database.transaction((tx) => fn(tx));
  if (!(await services.database.transaction((tx) => claimOutboxMail(tx, row.id, row.attempts, Date.now(), Date.now() + CLAIM_MS)))) return false;
  try {
    await sendMail(services.config, { to: row.to_address, subject: row.subject, text: row.text_body, html: row.html_body });
    await write((tx) => markOutboxSent(tx, row.id, Date.now()));
  } catch (err) {
    const attempts = row.attempts + 1;
    const retryAt = attempts >= MAX_ATTEMPTS ? null : Date.now() + services.config.emailRetrySeconds * 1000 * 2 ** (attempts - 1);
    await write((tx) => markOutboxFailure(tx, row.id, String((err as Error).message ?? err).slice(0, 500), retryAt));
    if (retryAt === null) console.error(`email ${row.id} (${row.kind}) to ${row.to_address} failed for good:`, err);
  }
  return true;
}

/** One pass: sends what is due; returns how many rows it took (sent or failed). */
export async function sendDueMails(services: Services, self?: Periodic): Promise<number> {
  const db = services.database.db;
  let sent = 0;
  for (;;) {
    const now = Date.now();
    const due = await dueOutboxMails(db, now, 50);
    if (due.length === 0) break;
    let claimedAny = false;
    for (const row of due) {
      if (self?.stopped) return sent;
      if (!(await sendOne(services, row))) continue;
      claimedAny = true;
      sent++;
    }
    // Another process holds every due row: leave them to it.
    if (!claimedAny) break;
  }
  return sent;
}

/** Starts the outbox runner of this process (every interval, and right after mail is queued). */
export function startMailDelivery(services: Services, intervalMs = 1000): Periodic {
  let lastCleanup = 0;
  const runner = runPeriodically('email outbox', intervalMs, async (self) => {
    await sendDueMails(services, self);
    if (Date.now() - lastCleanup > 3600_000) {
      lastCleanup = Date.now();
      await services.database.transaction((tx) => deleteSentOutboxMails(tx, Date.now() - KEEP_SENT_MS));
    }
  });
  services.jobs.mail = runner;
  return runner;
}

/** Queues mails in a transaction of their own and sends them at once (see sendQueuedNow). */
export async function queueAndSend(services: Services, mails: OutboxMail[]): Promise<void> {
  const ids = await services.database.transaction((tx, onCommit) => queueMails(services, tx, onCommit, mails));
  await sendQueuedNow(services, ids);
}

/** Queues mails in a transaction of their own, for the runner. */
export async function queueMailsNow(services: Services, mails: OutboxMail[]): Promise<void> {
  await services.database.transaction((tx, onCommit) => queueMails(services, tx, onCommit, mails));
}
