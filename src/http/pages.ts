// The few pages outside the API that a person opens in a browser: email confirmation links.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { confirmEmailChange } from '../actions/email_change.js';
import { bbbApiUrl, verifyJoin } from '../lib/bigbluebutton.js';
import { acceptInvite, usableInvite } from '../actions/invites.js';
import { ApiError } from '../errors.js';
import { registerAccountPages } from './account_pages.js';

function page(title: string, text: string): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}

export function registerPages(app: FastifyInstance, services: Services): void {
  registerAccountPages(app, services);
  // A signed BigBlueButton link: create the meeting on the BBB server, then send the browser there.
  app.get('/calls/bigbluebutton/join', async (request, reply) => {
    const bbb = services.config.bigBlueButton;
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const meeting = bbb ? verifyJoin(bbb, query) : undefined;
    reply.type('text/html; charset=utf-8');
    if (!bbb || !meeting) return reply.code(404).send(page('Link not valid', 'This video call link is invalid.'));
    const create = bbbApiUrl(bbb, 'create', {
      meetingID: meeting.meeting_id!,
      name: meeting.meeting_name ?? 'Meeting',
      moderatorPW: meeting.moderator_password!,
      attendeePW: `${meeting.moderator_password}a`,
      lockSettingsDisableCam: meeting.voice_only === 'true' ? 'true' : 'false',
    });
    let ok = false;
    try {
      const res = await fetch(create, { signal: AbortSignal.timeout(10_000) });
      ok = res.ok && (await res.text()).includes('<returncode>SUCCESS</returncode>');
    } catch {
      ok = false;
    }
    if (!ok) return reply.code(502).send(page('Video call unavailable', 'The BigBlueButton server did not create the meeting.'));
    const join = bbbApiUrl(bbb, 'join', {
      meetingID: meeting.meeting_id!,
      password: meeting.moderator_password!,
      fullName: query.get('full_name') ?? 'Guest',
    });
    return reply.redirect(join, 302);
  });


  // Accepting an invitation: a form (full name, password; the address too for a reusable link)
  // that creates the account the invitation offers.
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const signupForm = (realmName: string, email: string | null, error?: string) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>Join ${esc(realmName)}</title></head><body><h1>Join ${esc(realmName)}</h1>` +
    (error ? `<p class="error">${esc(error)}</p>` : '') +
    `<form method="post">` +
    (email === null ? `<label>Email <input type="email" name="email" required></label><br>` : `<p>Email: ${esc(email)}</p>`) +
    `<label>Full name <input type="text" name="full_name" required></label><br>` +
    `<label>Password <input type="password" name="password" required></label><br>` +
    `<button type="submit">Create account</button></form></body></html>`;
  const invalidInvite = () => page('Link not valid', 'This invitation link is invalid, expired, revoked or already used.');
  for (const path of ['/join/:key/', '/accounts/do_confirm/:key']) {
    app.get(path, async (request, reply) => {
      const { key } = request.params as { key: string };
      const found = await usableInvite(services, key);
      reply.type('text/html; charset=utf-8');
      if (!found) return reply.code(404).send(invalidInvite());
      return signupForm(found.realm.name, found.invite.is_multiuse ? null : found.invite.email);
    });
    app.post(path, async (request, reply) => {
      const { key } = request.params as { key: string };
      const body = (request.body ?? {}) as Record<string, unknown>;
      const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
      reply.type('text/html; charset=utf-8');
      const found = await usableInvite(services, key);
      if (!found) return reply.code(404).send(invalidInvite());
      try {
        const made = await acceptInvite(services, key, { email: field('email'), fullName: field('full_name'), password: field('password') });
        return page('Account created', `Welcome to ${found.realm.name}! You can now log in as ${made.email}.`);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        return reply.code(400).send(signupForm(found.realm.name, found.invite.is_multiuse ? null : found.invite.email, e.message));
      }
    });
  }

  app.get('/accounts/confirm_new_email/:key', async (request, reply) => {
    const { key } = request.params as { key: string };
    const email = await confirmEmailChange(services, key);
    reply.type('text/html; charset=utf-8');
    if (!email) return reply.code(404).send(page('Link not valid', 'This confirmation link is invalid, expired or already used.'));
    return page('Email address changed', `Your email address is now ${email}.`);
  });
}
