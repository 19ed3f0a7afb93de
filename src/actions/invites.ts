// Invitations: email invitations (one address, used once) and reusable invitation links, who may
// create, see, revoke and resend them, and accepting one (the account it creates).
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import { ROLE, requireUser, type User } from '../store/users.js';
import { addUserToGroups } from '../store/groups.js';
import { isUserInGroup } from '../store/cache.js';
import { getStreamsByIds, subscriptionsOf, type Stream } from '../store/channels.js';
import { ApiError, BadRequest, NotAllowed, AdminRequired, OwnerRequired } from '../errors.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { composeEmail } from '../lib/email_templates.js';
import { queueAndSend } from './email.js';
import { hashPassword, passwordStrongEnough } from '../lib/secrets.js';
import { realmUrl } from '../shapes/realm.js';
import { subscriptionEvents } from '../shapes/channels.js';
import {
  INVITE_STATUS,
  getInvite,
  getInviteByKey,
  insertInvite,
  markEmailInvitesUsed,
  claimInvite,
  invitePending,
  pendingInvites,
  setInviteStatus,
  updateInviteTerms,
  type Invite,
} from '../store/invites.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { canAddSubscribers } from './channels.js';
import { subscribeNewAccountTo } from './subscription_writes.js';
import { defaultStreamsForNewUser } from './default_streams.js';
import { audienceFor, checkUniqueName, insertAccount, publishUserAdded, validateEmail, validateFullName } from './users.js';
import { requireMemberOrAdmin } from '../access/roles.js';
import { notificationBot, silentMention } from './notification_bot.js';
import { mentionFree } from '../markdown/render.js';
import { postDirectFromBot, renderBotMessage, welcomeBot, type RenderedBody } from './bot_messages.js';
import { emailDomainsToCheck, emailRefusal, refusalText } from './realm_domains.js';
import { onConflict } from '../store/conflicts.js';

/** Zulip's INVITATION_LINK_VALIDITY_MINUTES default: ten days. */
export const DEFAULT_INVITE_EXPIRES_IN_MINUTES = 10 * 24 * 60;
export const MAX_WELCOME_MESSAGE_LENGTH = 8000;
/** Zulip's INVITES_MIN_USER_AGE_DAYS: in open organizations, new accounts may not invite yet. */
const INVITES_MIN_USER_AGE_DAYS = 3;
const INVITE_AS_VALUES = [ROLE.owner, ROLE.administrator, ROLE.moderator, ROLE.member, ROLE.guest];

/** Zulip's InvitationError: the per-address problems and whether anyone was invited. */
export class InvitationFailed extends ApiError {
  constructor(msg: string, errors: Array<[string, string, boolean]>, sentInvitations: boolean) {
    super(msg, 'INVITATION_FAILED', 400, { errors, sent_invitations: sentInvitations, license_limit_reached: false, daily_limit_reached: false });
  }
}

export interface InviteOptions {
  expiresInMinutes: number | null | undefined;
  inviteAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
  welcomeMessageCustomText: string | null | undefined;
}

/** Zulip's invite_as values (check_int_in at parse time: 'Invalid invite_as'). */
export function checkInviteAsValue(inviteAs: number): void {
  if (!INVITE_AS_VALUES.includes(inviteAs as (typeof INVITE_AS_VALUES)[number])) throw new BadRequest('Invalid invite_as');
}

/**
 * Zulip's check_role_based_permissions (zerver/views/invite.py): owners are invited by owners
 * (OrganizationOwnerRequiredError); with require_admin, anything else needs an administrator,
 * refused as a plain error ('Must be an organization administrator', code BAD_REQUEST).
 */
function checkRoleBasedPermissions(user: User, invitedAs: number, requireAdmin: boolean): void {
  if (invitedAs === ROLE.owner && user.role !== ROLE.owner) throw new OwnerRequired();
  if (requireAdmin && !isRealmAdmin(user)) throw new BadRequest('Must be an organization administrator');
}

/** Whether the user may give an invitation for this role: owners, administrators and moderators are invited by administrators. */
function checkInviteAs(user: User, inviteAs: number): void {
  checkInviteAsValue(inviteAs);
  checkRoleBasedPermissions(user, inviteAs, inviteAs === ROLE.owner || inviteAs === ROLE.administrator || inviteAs === ROLE.moderator);
}

/** Zulip's rule for managing someone else's invitation: administrators, and owners for owner invitations. */
function checkManage(user: User, invite: Invite): void {
  if (invite.referrer_id === user.id) return;
  checkRoleBasedPermissions(user, invite.invited_as, true);
}

/** The checks both kinds of invitation share: role, expiry, channels, the welcome text. */
async function checkOptions(services: Services, user: User, realm: Realm, o: InviteOptions): Promise<{ now: number; expiresAt: number | null; streams: Stream[]; groupIds: number[]; welcome: string | null }> {
  checkInviteAs(user, o.inviteAs);
  const minutes = o.expiresInMinutes === undefined ? DEFAULT_INVITE_EXPIRES_IN_MINUTES : o.expiresInMinutes;
  if (minutes !== null && minutes <= 0) throw new BadRequest('Invalid invite_expires_in_minutes');
  const now = nowSeconds();
  const expiresAt = minutes === null ? null : now + minutes * 60;
  if (expiresAt !== null && !Number.isSafeInteger(expiresAt)) throw new BadRequest('Invalid invite_expires_in_minutes');
  const streamIds = [...new Set(o.streamIds)];
  const graph = await services.cache.groupGraph(realm.id);
  const found = new Map((await getStreamsByIds(services.database.db, realm.id, streamIds)).map((s) => [s.id, s]));
  const subs = await subscriptionsOf(services.database.db, user.id, streamIds);
  const subscribed = new Set([...subs.values()].filter((r) => r.active).map((r) => r.stream_id));
  const streams: Stream[] = [];
  for (const id of streamIds) {
    const s = found.get(id);
    if (!s || s.is_archived || !channelAccess(graph, user, s, subscribed.has(id)).content) throw new BadRequest(`Invalid channel ID ${id}. No invites were sent.`);
    streams.push(s);
  }
  // Default channels are always allowed; others need permission to add subscribers.
  const defaults = new Set((await defaultStreamsForNewUser(services.database.db, realm.id)).map((s) => s.id));
  if (streams.some((s) => !defaults.has(s.id) && !canAddSubscribers(graph, realm, user, s))) {
    throw new BadRequest('You do not have permission to subscribe other users to channels.');
  }
  // Groups the new account joins: named, active, and ones the inviter may add members to.
  const groupIds = [...new Set(o.groupIds)];
  const inGroup = (setting: number | null) => setting !== null && isUserInGroup(graph, user.id, setting);
  for (const id of groupIds) {
    const g = graph.groups.get(id);
    if (!g || !g.named || g.deactivated) throw new BadRequest('Invalid user group');
    if (g.is_system_group) throw new NotAllowed('Insufficient permission');
    if (!inGroup(realm.settings.can_manage_all_groups) && !inGroup(g.can_manage_group) && !inGroup(g.can_add_members_group)) throw new NotAllowed('Insufficient permission');
  }
  let welcome: string | null = null;
  if (o.welcomeMessageCustomText !== undefined && o.welcomeMessageCustomText !== null) {
    if (o.welcomeMessageCustomText.length > MAX_WELCOME_MESSAGE_LENGTH) {
      throw new BadRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_MESSAGE_LENGTH} characters)`);
    }
    // Only administrators choose a custom welcome, as Zulip's invite views check last.
    if (!isRealmAdmin(user)) throw new BadRequest('Must be an organization administrator');
    welcome = o.welcomeMessageCustomText;
  }
  // The invitation's creation time is this same reading: its expiry is exactly the minutes asked after it.
  return { now, expiresAt, streams, groupIds, welcome };
}

/** invites_changed goes to the organization's administrators and the invitation's creator. */
async function publishInvitesChanged(services: Services, onCommit: OnCommit, realm: Realm, referrerId: number): Promise<void> {
  const users = await services.cache.users(realm.id);
  const ids = new Set([...users.values()].filter((u) => u.is_active && isRealmAdmin(u)).map((u) => u.id));
  ids.add(referrerId);
  publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [...ids], event: { type: 'invites_changed' } });
}

function newKey(): string {
  return randomBytes(12).toString('hex');
}

function emailInviteLink(services: Services, realm: Realm, key: string): string {
  return `${realmUrl(realm, services.config.externalUrl)}/accounts/do_confirm/${key}`;
}

function multiuseLink(services: Services, realm: Realm, key: string): string {
  return `${realmUrl(realm, services.config.externalUrl)}/join/${key}/`;
}

async function mailInvitation(services: Services, realm: Realm, referrer: User, invite: Invite): Promise<void> {
  const link = emailInviteLink(services, realm, invite.confirmation_key);
  const expiry = invite.expires_at === null ? 'This invitation does not expire.' : `This invitation expires on ${new Date(invite.expires_at * 1000).toUTCString()}.`;
  const mail = composeEmail(
    `${referrer.full_name} invited you to join ${realm.name}`,
    [
      { p: 'Hi,' },
      { p: `${referrer.full_name} (${referrer.email}) has invited you to join ${realm.name}, an organization on Confab.` },
      { link, label: 'Create your account' },
      { p: expiry },
    ],
    `${realm.name} · ${services.config.externalUrl}`,
  );
  await queueAndSend(services, [{ realmId: realm.id, kind: 'invitation', to: invite.email!, ...mail }]);
}

/** Zulip's parsing of invitee_emails: separated by commas or newlines; "Name <address>" allowed. */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    const email = (named ? named[1]! : part).trim();
    if (email) out.add(email);
  }
  return [...out];
}

/** POST /invites: email invitations, one per address. */
export async function inviteUsers(services: Services, user: User, realm: Realm, rawEmails: string, o: InviteOptions): Promise<void> {
  requireMemberOrAdmin(user);
  const graph = await services.cache.groupGraph(realm.id);
  if (!isUserInGroup(graph, user.id, realm.settings.can_invite_users_group)) throw new NotAllowed('Insufficient permission');
  checkInviteAs(user, o.inviteAs);
  const emails = parseInviteeEmails(rawEmails);
  if (emails.length === 0) throw new BadRequest('You must specify at least one email address.');
  const { now, expiresAt, streams, groupIds, welcome } = await checkOptions(services, user, realm, o);
  // Where anyone may join without an invitation, a fresh account cannot be used to send spam invitations.
  if (!realm.settings.invite_required && !isRealmAdmin(user) && user.date_joined > nowSeconds() - INVITES_MIN_USER_AGE_DAYS * 86400) {
    throw new InvitationFailed('Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.', [], false);
  }

  const invalid: Array<[string, string, boolean]> = [];
  const skipped: Array<[string, string, boolean]> = [];
  const good: string[] = [];
  const users = await services.cache.users(realm.id);
  const byEmail = new Map([...users.values()].map((u) => [u.email.toLowerCase(), u]));
  const domains = await emailDomainsToCheck(services, realm);
  for (const email of emails) {
    try {
      validateEmail(email);
    } catch {
      invalid.push([email, 'Invalid address.', false]);
      continue;
    }
    // Zulip's validate_email_is_valid, with the organization's email validator.
    const refusal = emailRefusal(realm, domains, email);
    if (refusal) {
      invalid.push([email, refusalText(refusal), false]);
      continue;
    }
    const existing = byEmail.get(email.toLowerCase());
    if (existing) skipped.push(existing.is_active ? [email, 'Already has an account.', false] : [email, 'Account has been deactivated.', true]);
    else good.push(email);
  }
  if (invalid.length) throw new InvitationFailed("Some emails did not validate, so we didn't send any invitations.", [...invalid, ...skipped], false);
  if (good.length === 0) throw new InvitationFailed("We weren't able to invite anyone.", skipped, false);

  const made = await services.database.transaction(async (tx, onCommit) => {
    const out: Invite[] = [];
    for (const email of good) {
      const invite = {
        realm_id: realm.id,
        referrer_id: user.id,
        is_multiuse: false,
        email,
        invited_as: o.inviteAs,
        confirmation_key: newKey(),
        created_at: now,
        expires_at: expiresAt,
        stream_ids: streams.map((s) => s.id),
        group_ids: groupIds,
        include_realm_default_subscriptions: o.includeRealmDefaultSubscriptions,
        notify_referrer_on_join: o.notifyReferrerOnJoin,
        welcome_message_custom_text: welcome,
      };
      const id = await insertInvite(tx, invite);
      out.push({ ...invite, id, status: INVITE_STATUS.pending });
    }
    await publishInvitesChanged(services, onCommit, realm, user.id);
    return out;
  });
  for (const invite of made) await mailInvitation(services, realm, user, invite);
  if (skipped.length) {
    throw new InvitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      skipped,
      true,
    );
  }
}

/** POST /invites/multiuse: a reusable invitation link. */
export async function createInviteLink(services: Services, user: User, realm: Realm, o: InviteOptions): Promise<string> {
  requireMemberOrAdmin(user);
  const graph = await services.cache.groupGraph(realm.id);
  if (!isUserInGroup(graph, user.id, realm.settings.create_multiuse_invite_group)) throw new NotAllowed('Insufficient permission');
  const { now, expiresAt, streams, groupIds, welcome } = await checkOptions(services, user, realm, o);
  const key = newKey();
  await services.database.transaction(async (tx, onCommit) => {
    await insertInvite(tx, {
      realm_id: realm.id,
      referrer_id: user.id,
      is_multiuse: true,
      email: null,
      invited_as: o.inviteAs,
      confirmation_key: key,
      created_at: now,
      expires_at: expiresAt,
      stream_ids: streams.map((s) => s.id),
      group_ids: groupIds,
      include_realm_default_subscriptions: o.includeRealmDefaultSubscriptions,
      notify_referrer_on_join: o.notifyReferrerOnJoin,
      welcome_message_custom_text: welcome,
    });
    await publishInvitesChanged(services, onCommit, realm, user.id);
  });
  return multiuseLink(services, realm, key);
}

/** GET /invites: administrators see every pending invitation, others their own. */
export async function listInvites(services: Services, user: User, realm: Realm): Promise<Record<string, unknown>[]> {
  requireMemberOrAdmin(user);
  const rows = await pendingInvites(services.database.db, realm.id, nowSeconds(), isRealmAdmin(user) ? undefined : user.id);
  return rows.map((i) => {
    const common = {
      id: i.id,
      invited_by_user_id: i.referrer_id,
      invited: i.created_at,
      expiry_date: i.expires_at,
      invited_as: i.invited_as,
      notify_referrer_on_join: i.notify_referrer_on_join,
      is_multiuse: i.is_multiuse,
    };
    return i.is_multiuse ? { ...common, link_url: multiuseLink(services, realm, i.confirmation_key) } : { ...common, email: i.email };
  });
}

/** An invitation of the organization the user may act on; missing ones and others' look the same. */
async function manageableInvite(services: Services, user: User, realm: Realm, id: number, multiuse: boolean): Promise<Invite> {
  requireMemberOrAdmin(user);
  const invite = await getInvite(services.database.db, realm.id, id, multiuse);
  if (!invite || (!multiuse && invite.status !== INVITE_STATUS.pending)) throw new BadRequest('No such invitation');
  checkManage(user, invite);
  return invite;
}

/** DELETE /invites/{id} and DELETE /invites/multiuse/{id}. */
export async function revokeInvite(services: Services, user: User, realm: Realm, id: number, multiuse: boolean): Promise<void> {
  const invite = await manageableInvite(services, user, realm, id, multiuse);
  if (invite.status === INVITE_STATUS.revoked) throw new BadRequest('Invitation has already been revoked');
  await services.database.transaction(async (tx, onCommit) => {
    await setInviteStatus(tx, invite.id, INVITE_STATUS.revoked);
    await publishInvitesChanged(services, onCommit, realm, invite.referrer_id);
  });
}

/**
 * PATCH /invites/multiuse/{id}: change what a reusable link grants (role, channels, groups, the
 * default channels, the welcome text) without changing the link itself. Who may do so and what
 * they may grant follow the rules for creating one.
 */
export async function editInviteLink(
  services: Services,
  user: User,
  realm: Realm,
  id: number,
  o: Partial<Pick<InviteOptions, 'inviteAs' | 'streamIds' | 'groupIds' | 'includeRealmDefaultSubscriptions' | 'welcomeMessageCustomText'>>,
): Promise<void> {
  const invite = await manageableInvite(services, user, realm, id, true);
  if (invite.status === INVITE_STATUS.revoked) throw new BadRequest('Invitation has already been revoked');
  if (invite.expires_at !== null && invite.expires_at <= nowSeconds()) throw new BadRequest('No such invitation');
  const merged: InviteOptions = {
    expiresInMinutes: null,
    inviteAs: o.inviteAs ?? invite.invited_as,
    streamIds: o.streamIds ?? invite.stream_ids,
    groupIds: o.groupIds ?? invite.group_ids,
    includeRealmDefaultSubscriptions: o.includeRealmDefaultSubscriptions ?? invite.include_realm_default_subscriptions,
    notifyReferrerOnJoin: invite.notify_referrer_on_join,
    welcomeMessageCustomText: o.welcomeMessageCustomText === undefined ? invite.welcome_message_custom_text : o.welcomeMessageCustomText,
  };
  const { streams, groupIds, welcome } = await checkOptions(services, user, realm, merged);
  await services.database.transaction(async (tx, onCommit) => {
    await updateInviteTerms(tx, invite.id, {
      invited_as: merged.inviteAs,
      stream_ids: streams.map((s) => s.id),
      group_ids: groupIds,
      include_realm_default_subscriptions: merged.includeRealmDefaultSubscriptions,
      welcome_message_custom_text: o.welcomeMessageCustomText === undefined ? invite.welcome_message_custom_text : welcome,
    });
    await publishInvitesChanged(services, onCommit, realm, invite.referrer_id);
  });
}

/** POST /invites/{id}/resend: the invitation email again, same link. */
export async function resendInvite(services: Services, user: User, realm: Realm, id: number): Promise<void> {
  const invite = await manageableInvite(services, user, realm, id, false);
  if (invite.expires_at !== null && invite.expires_at <= nowSeconds()) throw new BadRequest('No such invitation');
  const referrer = (await services.cache.users(realm.id)).get(invite.referrer_id) ?? user;
  await mailInvitation(services, realm, referrer, invite);
}

// ---- accepting an invitation ----

/** The invitation behind a link, if it can still be used. */
export async function usableInvite(services: Services, key: string): Promise<{ invite: Invite; realm: Realm } | undefined> {
  if (!/^[0-9a-f]{24}$/.test(key)) return undefined;
  const invite = await getInviteByKey(services.database.db, key);
  if (!invite || invite.status !== INVITE_STATUS.pending) return undefined;
  if (invite.expires_at !== null && invite.expires_at <= nowSeconds()) return undefined;
  const realm = await services.cache.realm(invite.realm_id);
  if (!realm || realm.deactivated) return undefined;
  return { invite, realm };
}

/**
 * Creates the account an invitation offers: the invited role, the invited channels (and the
 * default ones when asked), realm_user and subscription events, and the referrer's notice.
 */
export async function acceptInvite(
  services: Services,
  key: string,
  form: { email?: string; fullName: string; password: string },
): Promise<{ user_id: number; email: string }> {
  const found = await usableInvite(services, key);
  if (!found) throw new BadRequest('Invalid or expired invitation link.');
  const { invite, realm } = found;
  const email = validateEmail(invite.is_multiuse ? (form.email ?? '') : invite.email!);
  // The organization's domains may have changed since the invitation: Zulip's sign-up form
  // (HomepageForm.clean_email) checks email_allowed_for_realm again, with these texts.
  const refusal = emailRefusal(realm, await emailDomainsToCheck(services, realm), email);
  if (refusal === 'domain') throw new BadRequest(`Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`);
  if (refusal === 'plus') throw new BadRequest('Email addresses containing + are not allowed in this organization.');
  if (refusal === 'disposable') throw new BadRequest('Please use your real email address.');
  const fullName = validateFullName(form.fullName);
  if (!passwordStrongEnough(form.password, services.config.passwordMinLength)) throw new BadRequest('The password is too weak.');
  const users = await services.cache.users(realm.id);
  if ([...users.values()].some((u) => u.email.toLowerCase() === email.toLowerCase())) throw new BadRequest(`Email '${email}' already in use`);
  checkUniqueName(realm, users.values(), fullName);
  const passwordHash = await hashPassword(form.password);
  const audience = await audienceFor(services, realm, { id: 0, is_bot: false }, true);
  const graph = await services.cache.groupGraph(realm.id);
  const referrer = users.get(invite.referrer_id);
  const notify = invite.notify_referrer_on_join && referrer?.is_active && !referrer.is_bot ? referrer : undefined;
  const bot = notify ? await notificationBot(services, realm.id) : undefined;
  const welcomeText = invite.welcome_message_custom_text ?? realm.settings.welcome_message_custom_text;
  const welcomer = welcomeText.trim() ? await welcomeBot(services, realm.id) : undefined;
  const welcomeBody: RenderedBody | undefined = welcomer ? await renderBotMessage(services, realm, welcomer, welcomeText) : undefined;
  const botUsers = await services.cache.users(realm.id);

  return onConflict(services.database.transaction(async (tx, onCommit) => {
    if (invite.is_multiuse) {
      if (!(await invitePending(tx, invite.id))) throw new BadRequest('Invalid or expired invitation link.');
    } else {
      // Used once: the update wins only for the first of two racing acceptances.
      if (!(await claimInvite(tx, invite.id))) throw new BadRequest('Invalid or expired invitation link.');
    }
    const created = await insertAccount(tx, { realmId: realm.id, email, fullName, role: invite.invited_as, passwordHash, now: nowSeconds() });
    await markEmailInvitesUsed(tx, realm.id, email);
    const user = await requireUser(tx, created.id);
    onCommit(() => {
      services.cache.invalidateUsers(realm.id);
      services.cache.invalidateGroups(realm.id);
    });
    publishUserAdded(services, onCommit, realm.id, user, [...audience, user]);

    const chosen = (await getStreamsByIds(tx, realm.id, invite.stream_ids)).filter((s) => !s.is_archived);
    const defaults = invite.include_realm_default_subscriptions ? await defaultStreamsForNewUser(tx, realm.id) : [];
    const streams = [...new Map([...chosen, ...defaults].map((s) => [s.id, s])).values()];
    const outcome = await subscribeNewAccountTo(tx, realm.id, user, streams);
    if (outcome) {
      for (const e of subscriptionEvents(graph, [...users.values(), user], [], outcome, undefined)) {
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: e.userIds, event: e.event });
      }
    }
    // The invitation's user groups that still exist.
    const joinGroups = invite.group_ids.filter((id) => {
      const g = graph.groups.get(id);
      return g && g.named && !g.deactivated && !g.is_system_group;
    });
    if (joinGroups.length) {
      await addUserToGroups(tx, user.id, joinGroups);
      const audienceIds = [...[...users.values()].filter((u) => u.is_active).map((u) => u.id), user.id];
      for (const groupId of joinGroups) {
        publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: audienceIds, event: { type: 'user_group', op: 'add_members', group_id: groupId, user_ids: [user.id] } });
      }
    }
    const everyone = new Map(botUsers);
    everyone.set(user.id, user);
    if (notify && bot) {
      const mention = silentMention(user);
      const body = { content: `${mention.md} accepted your invitation to join Zulip!`, html: `<p>${mention.html} accepted your invitation to join Zulip!</p>` };
      await postDirectFromBot(services, tx, onCommit, {
        bot,
        realm,
        users: everyone,
        recipient: notify,
        body: { ...body, rendered: mentionFree(body.html) },
      });
    }
    if (welcomer && welcomeBody) await postDirectFromBot(services, tx, onCommit, { bot: welcomer, realm, users: everyone, recipient: user, body: welcomeBody });
    await publishInvitesChanged(services, onCommit, realm, invite.referrer_id);
    return { user_id: created.id, email: created.email };
  }), () => new BadRequest(`Email '${email}' already in use`));
}

/** POST /realm/test_welcome_bot_custom_message: the Welcome Bot sends the text to the administrator. */
export async function testWelcomeBotMessage(services: Services, user: User, realm: Realm, text: string): Promise<number> {
  if (!isRealmAdmin(user)) throw new AdminRequired();
  if (text.length > MAX_WELCOME_MESSAGE_LENGTH) throw new BadRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_MESSAGE_LENGTH} characters)`);
  if (!text.trim()) throw new BadRequest('Message must not be empty');
  const bot = await welcomeBot(services, realm.id);
  const body = await renderBotMessage(services, realm, bot, text.trim());
  const users = await services.cache.users(realm.id);
  return services.database.transaction((tx, onCommit) => postDirectFromBot(services, tx, onCommit, { bot, realm, users, recipient: user, body }));
}
