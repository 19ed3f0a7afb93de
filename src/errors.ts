// The catalogue of errors a client can see. Every failure a route reports is one of these classes;
// the HTTP layer turns it into Zulip's envelope: {result: "error", msg, code, ...extra}.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;

  constructor(msg: string, code = 'BAD_REQUEST', status = 400, extra: Record<string, unknown> = {}) {
    super(msg);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }

  toBody(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

/** Generic invalid request (Zulip's JsonableError default). */
export class BadRequest extends ApiError {
  constructor(msg: string, extra: Record<string, unknown> = {}) {
    super(msg, 'BAD_REQUEST', 400, extra);
  }
}

export class MissingArgument extends ApiError {
  constructor(name: string) {
    super(`Missing '${name}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: name });
  }
}

/** A parameter sent under both its name and its older alias (Zulip's RequestConfusingParamsError). */
export class ConfusingParameters extends ApiError {
  constructor(name: string, alias: string) {
    super(`Can't decide between '${name}' and '${alias}' arguments`, 'REQUEST_CONFUSING_VAR', 400, { var_name1: name, var_name2: alias });
  }
}

export class IncompatibleParameters extends ApiError {
  constructor(names: string[]) {
    const list = names.join(', ');
    super(`Unsupported parameter combination: ${list}`, 'BAD_REQUEST', 400, { parameters: list });
  }
}

/** Missing credentials: Zulip answers 401 with a WWW-Authenticate challenge. */
export class Unauthorized extends ApiError {
  constructor(msg = 'Not logged in: API authentication or user session required') {
    super(msg, 'UNAUTHORIZED', 401);
  }
}

export class InvalidApiKey extends ApiError {
  constructor() {
    super('Invalid API key', 'INVALID_API_KEY', 401);
  }
}

export class UserDeactivated extends ApiError {
  constructor() {
    super('Account is deactivated', 'USER_DEACTIVATED', 401);
  }
}

export class RealmDeactivated extends ApiError {
  constructor() {
    super('This organization has been deactivated', 'REALM_DEACTIVATED', 401);
  }
}

/** A failed password login; the same answer for an unknown user and a wrong password. */
export class AuthenticationFailed extends ApiError {
  constructor() {
    super('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401);
  }
}

export class PermissionDenied extends ApiError {
  constructor(msg = 'Insufficient permission') {
    super(msg, 'UNAUTHORIZED_PRINCIPAL', 400);
  }
}

/** Zulip's OrganizationAdministratorRequiredError. */
export class AdminRequired extends ApiError {
  constructor() {
    super('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', 400);
  }
}

/** Zulip's OrganizationOwnerRequiredError. */
export class OwnerRequired extends ApiError {
  constructor() {
    super('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL', 400);
  }
}

/** Zulip's generic "you may not do this" answer (JsonableError with BAD_REQUEST). */
export class NotAllowed extends ApiError {
  constructor(msg = 'Insufficient permission') {
    super(msg, 'BAD_REQUEST', 400);
  }
}

export class NotFound extends ApiError {
  constructor(msg = 'Not Found') {
    super(msg, 'NOT_FOUND', 404);
  }
}

export class MethodNotAllowed extends ApiError {
  constructor() {
    super('Method Not Allowed', 'METHOD_NOT_ALLOWED', 405);
  }
}

export class StreamDoesNotExist extends ApiError {
  constructor(name: string) {
    super(`Channel '${name}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream: name });
  }
}

export class StreamIdDoesNotExist extends ApiError {
  constructor(streamId: number) {
    super(`Channel with ID '${streamId}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: streamId });
  }
}

/** Zulip answers "Invalid channel ID" for a channel the user may not see, the same as for a missing one. */
export class InvalidStreamId extends ApiError {
  constructor() {
    super('Invalid channel ID', 'BAD_REQUEST', 400);
  }
}

export class BadEventQueueId extends ApiError {
  constructor(queueId: string) {
    super(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });
  }
}

export class BadNarrow extends ApiError {
  constructor(msg = 'Invalid narrow operator: unknown operator') {
    super(msg, 'BAD_NARROW', 400);
  }
}

export class NoSuchUser extends ApiError {
  constructor() {
    super('No such user', 'BAD_REQUEST', 400);
  }
}

export class InvalidMessage extends ApiError {
  constructor() {
    super('Invalid message(s)', 'BAD_REQUEST', 400);
  }
}

export class RateLimited extends ApiError {
  constructor(retryAfter: number) {
    super('API usage exceeded rate limit', 'RATE_LIMIT_HIT', 429, { 'retry-after': retryAfter });
  }
}

/** Zulip's ResourceNotFoundError: status 404 with the generic BAD_REQUEST code. */
export class ResourceNotFound extends ApiError {
  constructor(msg: string) {
    super(msg, 'BAD_REQUEST', 404);
  }
}

export class ReactionAlreadyExists extends ApiError {
  constructor() {
    super('Reaction already exists.', 'REACTION_ALREADY_EXISTS', 400);
  }
}

export class ReactionDoesNotExist extends ApiError {
  constructor() {
    super("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST', 400);
  }
}

/** Push notifications: Confab has no push notification service (no bouncer, no FCM/APNs credentials). */
export class PushServiceNotConfigured extends ApiError {
  constructor() {
    super('Server is not configured to use push notification service.', 'PUSH_SERVICE_NOT_CONFIGURED', 400);
  }
}

export class InvalidPushDeviceToken extends ApiError {
  constructor() {
    super('Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN', 400);
  }
}

export class NoActivePushDevice extends ApiError {
  constructor() {
    super('No active registered push device', 'NO_ACTIVE_PUSH_DEVICE', 400);
  }
}

/** The push notification service could not be reached. */
export class FailedToConnectBouncer extends ApiError {
  constructor() {
    super('Network error while connecting to Zulip push notification service.', 'FAILED_TO_CONNECT_BOUNCER', 502);
  }
}

/** The push notification service failed on its side. */
export class InternalBouncerServerError extends ApiError {
  constructor() {
    super('Internal server error on Zulip push notification service, retry later.', 'INTERNAL_SERVER_ERROR_ON_BOUNCER', 502);
  }
}

/** The push notification service refused this server's registration (bad credentials, no plan). */
export class PushAdminActionRequired extends ApiError {
  constructor() {
    super('Push notification configuration issue on server, contact the server administrator or retry later.', 'ADMIN_ACTION_REQUIRED', 403);
  }
}

/**
 * A process that is stopping (its queues handed to another, or closed) makes no new event queue:
 * one made now would be lost. 503 so that the client, like Zulip's after a server restart, retries
 * /register, which the balancer then sends to a running process.
 */
export class ServerShuttingDown extends ApiError {
  constructor() {
    super('Server is shutting down', 'SERVER_DRAINING', 503);
  }
}
