// Bots: PATCH /bots/{bot_id} (name, role, an outgoing webhook's URL and format), DELETE
// /bots/{bot_id} (deactivate). POST /bots lives
// with the user routes; both read webhook URLs with webhookUrlParam.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import type { Params } from '../../lib/params.js';
import { BadRequest } from '../../errors.js';
import { requireMemberOrAdmin } from '../../access/roles.js';
import { deactivateBot, updateBot } from '../../actions/bots.js';

/**
 * A webhook URL parameter. Zulip's clients send it JSON-encoded ("\"https://…\""); a bare URL is
 * taken as is. Zulip's check_url: http(s) (or ftp) with a host.
 */
export function webhookUrlParam(params: Params, name: string): string | undefined {
  const raw = params.optStr(name);
  if (raw === undefined) return undefined;
  let value: unknown = raw;
  if (raw.trim().startsWith('"')) {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new BadRequest(`${name} is not valid JSON`);
    }
  }
  if (typeof value !== 'string') throw new BadRequest(`${name} is not a string`);
  let ok = false;
  try {
    const u = new URL(value);
    ok = ['http:', 'https:', 'ftp:', 'ftps:'].includes(u.protocol) && u.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) throw new BadRequest(`${name} is not a URL`);
  return value;
}

export function registerBotRoutes(r: Router): void {
  r.patch('/bots/{bot_id}', async (ctx) => {
    const { params, services, user, realm } = ctx;
    requireMemberOrAdmin(user);
    const botId = pathInt(ctx, 'bot_id', () => new BadRequest('No such bot'));
    const fullName = params.optStr('full_name');
    const role = params.optInt('role');
    const servicePayloadUrl = webhookUrlParam(params, 'service_payload_url');
    const serviceInterface = params.optInt('service_interface') ?? 1;
    return updateBot(services, user, realm, botId, { fullName, role, servicePayloadUrl, serviceInterface });
  });

  r.delete('/bots/{bot_id}', async (ctx) => {
    requireMemberOrAdmin(ctx.user);
    await deactivateBot(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'bot_id', () => new BadRequest('No such bot')));
    return {};
  });
}
