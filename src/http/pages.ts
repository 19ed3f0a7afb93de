// The few pages outside the API that a person opens in a browser: email confirmation links.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { confirmEmailChange } from '../actions/email_change.js';

function page(title: string, text: string): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}

export function registerPages(app: FastifyInstance, services: Services): void {
  app.get('/accounts/confirm_new_email/:key', async (request, reply) => {
    const { key } = request.params as { key: string };
    const email = await confirmEmailChange(services, key);
    reply.type('text/html; charset=utf-8');
    if (!email) return reply.code(404).send(page('Link not valid', 'This confirmation link is invalid, expired or already used.'));
    return page('Email address changed', `Your email address is now ${email}.`);
  });
}
