// The public Zulip API as this client uses it. Requests carry the API key in an Authorization
// header with credentials 'omit': the browser then never shows its own login box for a 401.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface Session {
  email: string;
  apiKey: string;
}

type Value = unknown;

function encode(params: Record<string, Value>): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return out;
}

function basic(email: string, key: string): string {
  const bytes = new TextEncoder().encode(`${email}:${key}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}

/** Called when a stored key stops working (401): the app goes back to the login page. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(f: () => void): void {
  onUnauthorized = f;
}

let session: Session | null = null;
export function setSession(s: Session | null): void {
  session = s;
}
export function currentSession(): Session | null {
  return session;
}

export async function call<T = any>(method: string, path: string, params: Record<string, Value> = {}, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = {};
  if (session) headers.Authorization = basic(session.email, session.apiKey);
  let url = `/api/v1${path}`;
  let body: BodyInit | undefined;
  if (params instanceof FormData) {
    body = params;
  } else if (method === 'GET') {
    const qs = encode(params).toString();
    if (qs) url += `?${qs}`;
  } else {
    body = encode(params);
  }
  const res = await fetch(url, { method, headers, body, credentials: 'omit', signal, cache: 'no-store' });
  let data: any;
  try {
    data = await res.json();
  } catch {
    throw new ApiError(`Server answered ${res.status}`, 'NETWORK', res.status);
  }
  if (!res.ok || data.result !== 'success') {
    const err = new ApiError(String(data.msg ?? `Error ${res.status}`), String(data.code ?? 'BAD_REQUEST'), res.status, data);
    if (res.status === 401 && session && path !== '/fetch_api_key') onUnauthorized();
    throw err;
  }
  return data as T;
}

export async function upload(file: File): Promise<{ url: string; filename: string }> {
  const form = new FormData();
  form.append('file', file, file.name);
  return call('POST', '/user_uploads', form as never);
}

export const api = {
  get: <T = any>(path: string, params?: Record<string, Value>, signal?: AbortSignal) => call<T>('GET', path, params, signal),
  post: <T = any>(path: string, params?: Record<string, Value>) => call<T>('POST', path, params),
  patch: <T = any>(path: string, params?: Record<string, Value>) => call<T>('PATCH', path, params),
  del: <T = any>(path: string, params?: Record<string, Value>) => call<T>('DELETE', path, params),
};
