// The client side of Zulip's push notification bouncer protocol, as a self-hosted Zulip server
// speaks it: requests to {bouncer}/api/v1/remotes/..., authenticated with HTTP Basic auth as the
// server's registration (its UUID and key), form-encoded or JSON. The bouncer forwards to FCM and
// APNs, which only it can reach for Zulip's mobile apps.
import { createHash } from 'node:crypto';
import { CONFAB_VERSION } from './version.js';

export interface BouncerConfig {
  url: string;
  serverId: string;
  serverKey: string;
}

/** A refusal from the bouncer (4xx with Zulip's error envelope) or a failure to reach it. */
export class BouncerError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
  /** Worth retrying: the bouncer could not be reached or failed on its side. */
  get retryable(): boolean {
    return this.status === 0 || this.status >= 500;
  }
}

export async function bouncerRequest(cfg: BouncerConfig, endpoint: string, body: Record<string, unknown>, opts: { json?: boolean } = {}): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {
    Authorization: 'Basic ' + Buffer.from(`${cfg.serverId}:${cfg.serverKey}`).toString('base64'),
    'User-Agent': `ZulipServer/${CONFAB_VERSION} (Confab)`,
  };
  let payload: string;
  if (opts.json) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  } else {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    payload = form.toString();
  }
  let res: Response;
  try {
    res = await fetch(`${cfg.url}/api/v1/remotes/${endpoint}`, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    throw new BouncerError(`${(err as Error).name} while trying to connect to push notification bouncer`, 0, null);
  }
  const text = await res.text();
  if (res.status >= 500) throw new BouncerError(`Received ${res.status} from push notification bouncer`, res.status, null);
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    if (res.status !== 200) throw new BouncerError('Error received from push notification bouncer', res.status, null);
  }
  if (res.status >= 400) throw new BouncerError(String(parsed.msg ?? 'Error received from push notification bouncer'), res.status, typeof parsed.code === 'string' ? parsed.code : null);
  if (res.status !== 200) throw new BouncerError(`Push notification bouncer returned unexpected status code ${res.status}`, res.status, null);
  return parsed;
}

/**
 * A stable UUID (version 4 layout) for one of this server's organizations or users, as the
 * bouncer identifies them: derived from the server's registration, so it needs no column and
 * stays the same across restarts.
 */
export function stableUuid(cfg: BouncerConfig, kind: 'realm' | 'user', id: number): string {
  const h = createHash('sha256').update(`${cfg.serverId}:${kind}:${id}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/**
 * Registers this server with a push notification service (Zulip's `manage.py register_server`):
 * POST /api/v1/remotes/server/register with the server's UUID and key, its host name and a contact
 * address. The same UUID and key then authenticate every push request.
 */
export async function registerServer(url: string, o: { serverId: string; serverKey: string; hostname: string; contactEmail: string }): Promise<Record<string, unknown>> {
  const cfg = { url: url.replace(/\/+$/, ''), serverId: o.serverId, serverKey: o.serverKey };
  return bouncerRequest(cfg, 'server/register', { zulip_org_id: o.serverId, zulip_org_key: o.serverKey, hostname: o.hostname, contact_email: o.contactEmail });
}
