// One Zulip API request from the benchmarks (run.ts, scale.ts, cpu_cost.ts, queue_move.ts), over the
// caller's agent (its pool of kept-alive connections): the parameters go in the query string for a
// GET and as a form body otherwise, and the answer comes back as text.
import { request, type Agent } from 'node:http';

export function apiCallText(agent: Agent, base: string, auth: string, method: string, path: string, params?: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const form = params ? new URLSearchParams(params).toString() : '';
    const body = params && method !== 'GET' ? form : undefined;
    const qs = params && method === 'GET' ? `?${form}` : '';
    const req = request(
      `${base}/api/v1${path}${qs}`,
      { method, agent, headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/** The same, with the answer parsed as JSON (a request whose answer is not JSON rejects). */
export async function apiCall(agent: Agent, base: string, auth: string, method: string, path: string, params?: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await apiCallText(agent, base, auth, method, path, params);
  return { status: res.status, body: JSON.parse(res.text) };
}
