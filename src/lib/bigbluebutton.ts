// BigBlueButton: meeting links signed locally with the shared secret (BBB's API checksum), and a
// join step that creates the meeting on the BBB server and sends the browser on to it.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from './secrets.js';

export interface BbbConfig {
  url: string;
  secret: string;
}

/** BBB's API checksum: sha1 of the call name, the query string and the secret. */
export function bbbChecksum(call: string, query: string, secret: string): string {
  return createHash('sha1').update(call + query + secret).digest('hex');
}

export function bbbApiUrl(c: BbbConfig, call: string, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return `${c.url}api/${call}?${query}&checksum=${bbbChecksum(call, query, c.secret)}`;
}

/** Our own join link: the meeting's parameters, signed so nobody can forge or alter them. */
export function signedJoinPath(c: BbbConfig, meetingName: string, voiceOnly: boolean): string {
  const params = new URLSearchParams({
    meeting_id: `zulip-${randomBytes(12).toString('hex')}`,
    meeting_name: meetingName,
    moderator_password: randomBytes(12).toString('hex'),
    voice_only: String(voiceOnly),
  });
  const signature = createHmac('sha256', c.secret).update(params.toString()).digest('hex');
  params.set('signature', signature);
  return `/calls/bigbluebutton/join?${params.toString()}`;
}

/** Checks a join link's signature; returns its parameters when it is genuine. */
export function verifyJoin(c: BbbConfig, query: URLSearchParams): Record<string, string> | undefined {
  const signature = query.get('signature') ?? '';
  const params = new URLSearchParams(query);
  params.delete('signature');
  params.delete('full_name');
  const expected = createHmac('sha256', c.secret).update(params.toString()).digest('hex');
  if (!constantTimeEqual(signature, expected)) return undefined;
  return Object.fromEntries(params);
}
