// One POST to an outgoing-webhook endpoint, with a time limit, sorted into what the worker acts
// on: an answer (any status), a timeout, a connection error (retried), or another failure.
import { ZULIP_VERSION } from './version.js';

export type WebhookBody = { json: unknown } | { form: Array<[string, string]> };

export type WebhookOutcome =
  | { kind: 'response'; status: number; text: string }
  | { kind: 'timeout' }
  | { kind: 'connection'; detail: string }
  | { kind: 'error'; name: string; detail: string }
  /** The server is shutting down: the request was abandoned, not failed. */
  | { kind: 'aborted' };

/** Errors of the network below HTTP: the endpoint is down, unreachable, or hung up. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** More than any reply could use (messages are at most 10,000 characters): the rest is not read. */
const MAX_ANSWER_BYTES = 256 * 1024;

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = MAX_ANSWER_BYTES - size;
    chunks.push(value.length > room ? value.subarray(0, room) : value);
    size += Math.min(value.length, room);
    if (size >= MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function postWebhook(url: string, body: WebhookBody, timeoutMs: number, stop?: AbortSignal): Promise<WebhookOutcome> {
  const headers: Record<string, string> = { 'User-Agent': `ZulipOutgoingWebhook/${ZULIP_VERSION}` };
  let payload: string;
  if ('json' in body) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body.form).toString();
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
  try {
    const res = await fetch(url, { method: 'POST', headers, body: payload, signal, redirect: 'manual' });
    // The body counts against the same time limit: a server that answers and then stalls times out.
    const text = await readCapped(res);
    return { kind: 'response', status: res.status, text };
  } catch (err) {
    if (stop?.aborted) return { kind: 'aborted' };
    if (timeout.aborted) return { kind: 'timeout' };
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const code = e.cause?.code;
    if (code && CONNECTION_CODES.has(code)) return { kind: 'connection', detail: `${code}: ${e.cause?.message ?? e.message}` };
    return { kind: 'error', name: e.name, detail: e.cause?.message ?? e.message };
  }
}
