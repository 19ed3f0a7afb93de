// The common interface of incoming-webhook integrations: a request (headers, parsed body, query
// parameters) becomes the messages Zulip's own integration would post for it, or an error saying
// the event is not supported or the payload is not what the service sends.
import { ApiError } from '../errors.js';

export interface WebhookRequest {
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body (or, for form posts, the form's fields). */
  body: unknown;
  /** The request's query parameters (configuration such as `branches`, `name`, `desc`). */
  query: Record<string, string | undefined>;
  /** Whether the caller chose the topic (`topic=`): some integrations then add a title to the content. */
  userTopic: boolean;
  /** The organization's active users, by id: Jira names people it mentions as Zulip does. */
  users: ReadonlyArray<{ id: number; full_name: string; email: string }>;
  /** Full names of the active users whose external account (see Integration.externalAccount) is the sender's. */
  externalUsers: string[];
}

export interface WebhookMessage {
  topic: string;
  content: string;
  /** The event type `only_events` and `exclude_events` match against, when the integration has one. */
  eventType?: string;
}

export interface Integration {
  /** The URL segment: /api/v1/external/{name}. */
  name: string;
  /** The service's name as Zulip writes it in errors ("GitHub"). */
  displayName: string;
  /** Decode `stream` and `topic` once more: some services (Jira, Bitbucket) encode URLs twice. */
  unquoteParams?: boolean;
  /** Fields added to the success answer (Slack's `ok: true`). */
  successData?: Record<string, unknown>;
  /** The error answer's body, for services that expect their own (Slack's {ok: false, error}). */
  errorBody?(msg: string): Record<string, unknown>;
  /** The sender's account at the service, looked up in users' external-account profile fields. */
  externalAccount?(req: Omit<WebhookRequest, 'externalUsers'>): { subtype: string; username: string } | undefined;
  /** A connection test that expects the bot's identity back instead of a message (Zapier's "auth"). */
  isAuthProbe?(req: WebhookRequest): boolean;
  /** Messages to post; an empty list for an event the integration knowingly ignores. */
  handle(req: WebhookRequest): WebhookMessage[];
}

/** Zulip answers 200 so services do not retry an event it will never post. */
export class UnsupportedEvent extends ApiError {
  constructor(webhookName: string, eventType: string) {
    super(`The '${eventType}' event isn't currently supported by the ${webhookName} webhook; ignoring`, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', 200, {
      webhook_name: webhookName,
      event_type: eventType,
    });
  }
}

export class MissingEventHeader extends ApiError {
  constructor(header: string) {
    super(`Missing the HTTP event header '${header}'`, 'MISSING_HTTP_EVENT_HEADER', 400, { header });
  }
}

/** A payload that is JSON but not from the service the URL names. */
export class AnomalousPayload extends ApiError {
  constructor(webhookName: string) {
    super(`Unable to parse request: Did ${webhookName} generate this event?`, 'ANOMALOUS_WEBHOOK_PAYLOAD', 400, { webhook_name: webhookName });
  }
}

/** A payload the integration cannot read: always a 400 naming the field, never a 500. */
export class MalformedPayload extends ApiError {
  constructor(msg: string) {
    super(msg, 'BAD_REQUEST', 400);
  }
}

/**
 * A read-only view of a JSON value that names the path of whatever is missing or of the wrong type
 * (`payload["pull_request"]["title"] is missing`), as Zulip's WildValue does.
 */
export class Wild {
  constructor(
    readonly value: unknown,
    readonly path = 'payload',
  ) {}

  private obj(): Record<string, unknown> | undefined {
    return typeof this.value === 'object' && this.value !== null && !Array.isArray(this.value) ? (this.value as Record<string, unknown>) : undefined;
  }

  /** Whether the key is present (with any value, null included). */
  has(key: string): boolean {
    const o = this.obj();
    return o !== undefined && Object.prototype.hasOwnProperty.call(o, key);
  }

  at(key: string): Wild {
    const o = this.obj();
    const path = `${this.path}["${key}"]`;
    if (!o) throw new MalformedPayload(`${this.path} is not a dict`);
    if (!Object.prototype.hasOwnProperty.call(o, key)) throw new MalformedPayload(`${path} is missing`);
    return new Wild(o[key], path);
  }

  /** The key's value, or undefined when it is absent or null. */
  opt(key: string): Wild | undefined {
    const o = this.obj();
    if (!o) return undefined;
    const v = o[key];
    return v === undefined || v === null ? undefined : new Wild(v, `${this.path}["${key}"]`);
  }

  /** Truthy as Python sees it: not null, false, 0, "", [] or {}. */
  get truthy(): boolean {
    const v = this.value;
    if (Array.isArray(v)) return v.length > 0;
    if (typeof v === 'object' && v !== null) return Object.keys(v).length > 0;
    return !!v;
  }

  str(): string {
    if (typeof this.value !== 'string') throw new MalformedPayload(`${this.path} is not a string`);
    return this.value;
  }
  int(): number {
    if (typeof this.value !== 'number' || !Number.isInteger(this.value)) throw new MalformedPayload(`${this.path} is not an integer`);
    return this.value;
  }
  num(): number {
    if (typeof this.value !== 'number') throw new MalformedPayload(`${this.path} is not a number`);
    return this.value;
  }
  bool(): boolean {
    if (typeof this.value !== 'boolean') throw new MalformedPayload(`${this.path} is not a boolean`);
    return this.value;
  }
  /** A string or null (Python's check_none_or(check_string)). */
  strOrNull(): string | null {
    return this.value === null ? null : this.str();
  }
  list(): Wild[] {
    if (!Array.isArray(this.value)) throw new MalformedPayload(`${this.path} is not a list`);
    return this.value.map((v, i) => new Wild(v, `${this.path}[${i}]`));
  }
  entries(): Array<[string, Wild]> {
    const o = this.obj();
    if (!o) throw new MalformedPayload(`${this.path} is not a dict`);
    return Object.entries(o).map(([k, v]) => [k, new Wild(v, `${this.path}["${k}"]`)]);
  }
  keys(): string[] {
    return Object.keys(this.obj() ?? {});
  }

  /** Shorthands: a string at a key; an optional string at a key (undefined when absent, null or empty). */
  s(key: string): string {
    return this.at(key).str();
  }
  os(key: string): string | undefined {
    const w = this.opt(key);
    if (w === undefined) return undefined;
    const v = w.str();
    return v === '' ? undefined : v;
  }
  i(key: string): number {
    return this.at(key).int();
  }
}

/** The event header a service sends, or Zulip's MISSING_HTTP_EVENT_HEADER error. */
export function eventHeader(req: WebhookRequest, header: string): string {
  const v = req.headers[header.toLowerCase()];
  if (v === undefined || v === '') throw new MissingEventHeader(header);
  return v;
}

/** Python's str(value) for JSON scalars, as Zulip's templates print them. */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloat(v);
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

function pyFloat(v: number): string {
  // Python prints the shortest repr too, but keeps exponents at 1e16 and beyond.
  const s = String(v);
  return s;
}

export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** A payload missing what the user had to configure in the service (Uptime Robot's JSON): the bot's owner is told. */
export class MisconfiguredPayload extends MalformedPayload {
  constructor(readonly service: string) {
    super('Invalid payload');
  }
}

/** Zulip's datetime_to_global_time: `<time:…>` in UTC to the second; a time without offset is UTC. */
export function globalTime(iso: string, path = 'payload'): string {
  const hasZone = /([zZ]|[+-]\d\d:?\d\d)$/.test(iso);
  const ms = Date.parse(hasZone ? iso : `${iso}Z`);
  if (!/^\d{4}-\d\d-\d\d/.test(iso) || Number.isNaN(ms)) throw new MalformedPayload(`${path} is not a valid date`);
  return `<time:${new Date(ms).toISOString().slice(0, 19)}+00:00>`;
}

/** The same from a Unix timestamp in seconds. */
export function globalTimeFromSeconds(seconds: number): string {
  return `<time:${new Date(Math.floor(seconds) * 1000).toISOString().slice(0, 19)}+00:00>`;
}
