// Invitations (email and reusable links), message reports, and the Welcome Bot's test message.
import { pathInt, type Router } from '../router.js';
import { check, type Params } from '../../lib/params.js';
import { BadRequest, InvalidMessage } from '../../errors.js';
import { requireMemberOrAdmin } from '../../access/roles.js';
import { checkInviteAsValue, createInviteLink, editInviteLink, inviteUsers, listInvites, resendInvite, revokeInvite, testWelcomeBotMessage, type InviteOptions } from '../../actions/invites.js';
import { reportMessage } from '../../actions/message_report.js';
import { ROLE } from '../../store/users.js';

/** The parameters POST /invites and POST /invites/multiuse share. */
function inviteOptions(params: Params, streamIdsRequired: boolean): InviteOptions {
  const expires = params.optJson('invite_expires_in_minutes', (v, name) => (v === null ? null : check.int(v, name)));
  const inviteAs = params.optJson('invite_as', check.int) ?? ROLE.member;
  checkInviteAsValue(inviteAs);
  const streamIds = streamIdsRequired ? params.json('stream_ids', check.intList) : (params.optJson('stream_ids', check.intList) ?? []);
  return {
    expiresInMinutes: expires,
    inviteAs,
    streamIds,
    groupIds: params.optJson('group_ids', check.intList) ?? [],
    includeRealmDefaultSubscriptions: params.bool('include_realm_default_subscriptions', false),
    notifyReferrerOnJoin: params.bool('notify_referrer_on_join', true),
    welcomeMessageCustomText: params.optStr('welcome_message_custom_text'),
  };
}

export function registerInviteRoutes(r: Router): void {
  r.get('/invites', async ({ services, user, realm }) => ({ invites: await listInvites(services, user, realm) }));

  // Zulip's invite views are @require_member_or_admin: guests and bots are refused before any parameter.
  r.post('/invites', async ({ params, services, user, realm }) => {
    requireMemberOrAdmin(user);
    const emails = params.str('invitee_emails');
    const options = inviteOptions(params, true);
    await inviteUsers(services, user, realm, emails, options);
  });

  r.post('/invites/multiuse', async ({ params, services, user, realm }) => {
    requireMemberOrAdmin(user);
    const options = inviteOptions(params, false);
    return { invite_link: await createInviteLink(services, user, realm, options) };
  });

  r.delete('/invites/{invite_id}', async (ctx) => {
    const id = pathInt(ctx, 'invite_id', () => new BadRequest('No such invitation'));
    await revokeInvite(ctx.services, ctx.user, ctx.realm, id, false);
  });

  r.delete('/invites/multiuse/{invite_id}', async (ctx) => {
    const id = pathInt(ctx, 'invite_id', () => new BadRequest('No such invitation'));
    await revokeInvite(ctx.services, ctx.user, ctx.realm, id, true);
  });

  r.patch('/invites/multiuse/{invite_id}', async (ctx) => {
    const { params } = ctx;
    const id = pathInt(ctx, 'invite_id', () => new BadRequest('No such invitation'));
    await editInviteLink(ctx.services, ctx.user, ctx.realm, id, {
      inviteAs: params.optJson('invite_as', check.int),
      streamIds: params.optJson('stream_ids', check.intList),
      groupIds: params.optJson('group_ids', check.intList),
      includeRealmDefaultSubscriptions: params.optBool('include_realm_default_subscriptions'),
      welcomeMessageCustomText: params.optStr('welcome_message_custom_text'),
    });
  });

  r.post('/invites/{invite_id}/resend', async (ctx) => {
    const id = pathInt(ctx, 'invite_id', () => new BadRequest('No such invitation'));
    await resendInvite(ctx.services, ctx.user, ctx.realm, id);
  });

  r.post('/messages/{message_id}/report', async (ctx) => {
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const reportType = ctx.params.str('report_type');
    const description = ctx.params.optStr('description') ?? '';
    await reportMessage(ctx.services, ctx.user, ctx.realm, id, reportType, description);
  });

  r.post('/realm/test_welcome_bot_custom_message', async ({ params, services, user, realm }) => {
    const text = params.str('welcome_message_custom_text');
    return { message_id: await testWelcomeBotMessage(services, user, realm, text) };
  });
}
