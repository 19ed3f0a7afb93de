// Incoming webhooks: POST /api/v1/external/{integration}. A service posts its own JSON; the
// integration (src/integrations/) turns it into Zulip's topic and content, and the bot posts it.
// Credentials: the bot's `api_key` in the query string (what services are given) or HTTP Basic.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse as parseQuery } from 'node:querystring';
import type { Services } from '../services.js';
import { ApiError, MissingArgument, NotFound } from '../errors.js';
import { authenticate, authenticateApiKey } from './auth.js';
import { API_PREFIX, AUTHED_BODY_LIMIT, setRateLimitHeaders, success } from './router.js';
import { Params, check } from '../lib/params.js';
import type { User } from '../store/users.js';
import { externalAccountNames } from '../queries/external_accounts.js';
import type { Realm } from '../store/realms.js';
import { apiEmail } from '../shapes/users.js';
import { botDomain } from '../shapes/realm.js';
import { findIntegration } from '../integrations/registry.js';
import { AnomalousPayload, MalformedPayload, MisconfiguredPayload, MissingEventHeader, type WebhookMessage } from '../integrations/core.js';
import { notifyBotOwner, postWebhookMessages } from '../actions/webhook_messages.js';

/** Python's fnmatch: `*`, `?`, `[seq]` and `[!seq]`, matched against the whole event name. */
export function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let set = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (set.startsWith('!')) set = '^' + set.slice(1);
        else if (set.startsWith('^')) set = '\\' + set;
        re += `[${set}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(name);
}

function eventAllowed(eventType: string | undefined, only: string[] | undefined, exclude: string[] | undefined): boolean {
  if (eventType === undefined) return true;
  if (only !== undefined && !only.some((p) => fnmatch(eventType, p))) return false;
  if (exclude !== undefined && exclude.some((p) => fnmatch(eventType, p))) return false;
  return true;
}

/** The payload: JSON whatever the declared type (services are careless with it), else form fields. */
function parseBody(raw: string, contentType: string): { body: unknown; form: Record<string, unknown> } {
  const trimmed = raw.trim();
  if (contentType.includes('application/x-www-form-urlencoded') && !/^[[{]/.test(trimmed)) {
    const form = parseQuery(raw) as Record<string, unknown>;
    // Slack-style posts carry the JSON in a `payload` field.
    const payload = form.payload;
    if (typeof payload === 'string') {
      try {
        return { body: JSON.parse(payload), form };
      } catch {
        throw new MalformedPayload('Malformed JSON');
      }
    }
    return { body: form, form };
  }
  if (trimmed === '') throw new MalformedPayload('Malformed JSON');
  try {
    return { body: JSON.parse(trimmed), form: {} };
  } catch {
    throw new MalformedPayload('Malformed JSON');
  }
}

/** Python's urllib.parse.unquote: malformed escapes stay as they are. */
function unquote(s: string): string {
  return s.replace(/(%[0-9a-fA-F]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return m;
    }
  });
}

async function webhookUser(services: Services, request: FastifyRequest, apiKey: string | undefined): Promise<{ user: User; realm: Realm }> {
  if (apiKey === undefined) {
    if (request.headers.authorization) return authenticate(services, request);
    throw new MissingArgument('api_key');
  }
  return authenticateApiKey(services, apiKey.trim());
}

/** The mistakes of configuration Zulip tells a bot's owner about: a missing event header, a body that is not JSON, a payload without the configured fields. */
async function tellOwnerAbout(services: Services, bot: User, realm: Realm, integration: string, path: string, err: unknown): Promise<void> {
  const identity = `@_**${bot.full_name}|${bot.id}**`;
  if (err instanceof MissingEventHeader) {
    const header = String(err.extra.header);
    await notifyBotOwner(
      services,
      bot,
      realm,
      `Your bot ${identity} received a request at \`${path}\` without the HTTP header \`${header}\`, which is how ${integration} says what happened. ` +
        `The service may be set up with the URL of another integration, or be a version that does not send that header.`,
    );
  } else if (err instanceof MisconfiguredPayload) {
    await notifyBotOwner(
      services,
      bot,
      realm,
      `Your bot ${identity} received a payload from ${err.service} without the data this integration needs: check the fields the webhook is set up to send in ${err.service}'s settings.`,
    );
  } else if (err instanceof MalformedPayload && err.message === 'Malformed JSON') {
    await notifyBotOwner(services, bot, realm, `Your bot ${identity} received a request for the ${integration} integration whose body is not the JSON that integration expects. Check the content type the service is set to send.`);
  }
}

export function registerWebhooks(app: FastifyInstance, services: Services): void {
  app.register(async (scope) => {
    // Every body arrives as text: the integration decides how to read it, and a malformed one is a
    // 400 from the integration rather than the framework's parse error.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

    // The key may travel in the body, so the body is read before the credentials are checked: kept
    // to the limit of a logged-in request (services push large payloads), not the anonymous 1 MiB.
    scope.post(`${API_PREFIX}/external/:integration`, { bodyLimit: AUTHED_BODY_LIMIT }, async (request, reply) => {
      const name = (request.params as { integration: string }).integration;
      const integration = findIntegration(name);
      if (!integration) throw new NotFound();
      const query = (request.query ?? {}) as Record<string, unknown>;
      const raw = typeof request.body === 'string' ? request.body : '';
      const contentType = String(request.headers['content-type'] ?? '');
      // Form fields only when the body is a form (some services send JSON under the form's type).
      const isForm = contentType.includes('application/x-www-form-urlencoded') && !/^\s*[[{]/.test(raw);
      const formFields = isForm ? (parseQuery(raw) as Record<string, unknown>) : {};
      // Query parameters configure the webhook; form fields may carry the key too (Zulip's REQ reads both).
      const params = new Params({ ...formFields, ...query });
      const { user, realm } = await webhookUser(services, request, params.optStr('api_key'));
      services.emailDomains.set(realm.id, botDomain(realm, services.config.externalUrl));
      const limiter = services.rateLimiter;
      if (limiter) setRateLimitHeaders(reply, await limiter.hit(`user:${user.id}`, limiter.config.user));

      let stream = params.optStr('stream');
      let topic = params.optStr('topic');
      if (integration.unquoteParams) {
        stream = stream === undefined ? undefined : unquote(stream);
        topic = topic === undefined ? undefined : unquote(topic);
      }
      const only = params.optJson('only_events', check.strList);
      const exclude = params.optJson('exclude_events', check.strList);
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(request.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v[0] : v;
      const queryText: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(query)) queryText[k] = Array.isArray(v) ? String(v[v.length - 1]) : typeof v === 'string' ? v : undefined;
      params.accept('api_key', 'stream', 'topic', 'only_events', 'exclude_events', ...Object.keys(query), ...Object.keys(formFields));

      try {
        const { body } = parseBody(raw, contentType);
        const users = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active).sort((a, b) => a.id - b.id);
        const base = { headers, body, query: queryText, userTopic: topic !== undefined, users };
        const account = integration.externalAccount?.(base);
        const externalUsers = account ? await externalAccountNames(services, realm.id, account.subtype, account.username) : [];
        const webhookRequest = { ...base, externalUsers };
        if (integration.isAuthProbe?.(webhookRequest)) {
          // The service checks the key and labels the connection with the bot's identity.
          return success(params, { full_name: user.full_name, email: apiEmail(user, services.emailDomains), id: user.id });
        }
        let messages: WebhookMessage[];
        try {
          messages = integration.handle(webhookRequest);
        } catch (err) {
          // A payload of a shape the integration did not foresee is the service's mistake, never a 500.
          if (err instanceof ApiError) throw err;
          throw new AnomalousPayload(integration.displayName);
        }
        const posts = messages.filter((m) => eventAllowed(m.eventType, only, exclude));
        if (posts.length > 0) {
          await postWebhookMessages(services, user, realm, posts, { stream, topic, clientName: `Zulip${integration.displayName}Webhook` });
        }
      } catch (err) {
        // A notice that cannot be sent must not change the answer the service gets.
        await tellOwnerAbout(services, user, realm, integration.displayName, request.url.split('?')[0]!, err).catch(() => undefined);
        // Errors after authentication, in the service's own format when it has one.
        if (integration.errorBody && err instanceof ApiError) return reply.status(err.status).send(integration.errorBody(err.message));
        throw err;
      }
      return success(params, integration.successData ?? {});
    });
  });
}
