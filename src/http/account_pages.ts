// The account pages a person opens in a browser at Zulip's addresses: the login page's stand-in
// (until a web client serves one) and password reset. Served under a strict Content-Security-Policy:
// no script at all, no inline style, forms only to this server.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../services.js';
import { escapeHtml } from '../lib/html.js';
import { completePasswordReset, passwordResetUser, requestPasswordReset } from '../actions/password_reset.js';
import { ApiError } from '../errors.js';

export const PAGE_CSP = "default-src 'none'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function send(reply: FastifyReply, status: number, title: string, body: string) {
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Content-Security-Policy', PAGE_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store');
  return reply.send(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>` +
      `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
  );
}

const field = (body: unknown, name: string): string => {
  const v = (body ?? {}) as Record<string, unknown>;
  return typeof v[name] === 'string' ? (v[name] as string) : '';
};

function resetForm(minLength: number, error?: string): string {
  return (
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
    `<form method="post"><p><label>New password <input type="password" name="new_password1" autocomplete="new-password" required minlength="${minLength}" maxlength="100"></label></p>` +
    `<p><label>Confirm password <input type="password" name="new_password2" autocomplete="new-password" required></label></p>` +
    `<p><button type="submit">Change password</button></p></form>`
  );
}

const invalidLink = '<p>This password reset link is invalid, expired or already used.</p><p><a href="/accounts/password/reset/">Request a new one</a></p>';

export function registerAccountPages(app: FastifyInstance, services: Services): void {
  // Zulip's login address: the web client's login page is the app's own first view.
  app.get('/login/', async (_request, reply) => reply.redirect('/', 302));

  app.get('/accounts/password/reset/', async (_request, reply) =>
    send(
      reply,
      200,
      'Reset your password',
      `<form method="post"><p><label>Email <input type="email" name="email" autocomplete="email" required></label></p>` +
        `<p><button type="submit">Send a reset link</button></p></form>`,
    ),
  );

  app.post('/accounts/password/reset/', async (request, reply) => {
    await requestPasswordReset(services, field(request.body, 'email'), request.headers.host ?? '');
    return reply.redirect('/accounts/password/reset/done/', 302);
  });

  app.get('/accounts/password/reset/done/', async (_request, reply) =>
    send(reply, 200, 'Check your email', '<p>If an account uses that address, an email with a link to set a new password is on its way. The link works for 24 hours.</p>'),
  );

  app.get('/accounts/password/reset/:token/', async (request, reply) => {
    const { token } = request.params as { token: string };
    const user = await passwordResetUser(services, token);
    if (!user) return send(reply, 404, 'Link not valid', invalidLink);
    return send(reply, 200, 'Set a new password', `<p>For ${escapeHtml(user.email)}.</p>${resetForm(services.config.passwordMinLength)}`);
  });

  app.post('/accounts/password/reset/:token/', async (request, reply) => {
    const { token } = request.params as { token: string };
    try {
      const user = await completePasswordReset(services, token, field(request.body, 'new_password1'), field(request.body, 'new_password2'));
      if (!user) return send(reply, 404, 'Link not valid', invalidLink);
      return send(reply, 200, 'Password changed', `<p>The password of ${escapeHtml(user.email)} is changed. You can <a href="/">log in</a> with it now.</p>`);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return send(reply, 400, 'Set a new password', resetForm(services.config.passwordMinLength, e.message));
    }
  });
}
