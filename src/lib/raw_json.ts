// JSON text assembled from parts already serialized: a value wrapped in RawJson is written as its
// text, not serialized again (Node 20 has no JSON.rawJSON). POST /register uses it for realm_users,
// whose users' texts are kept between requests (shapes/users.ts userJsonForClient): at 10,000
// users that list is two thirds of a 5 MB answer.
import { randomBytes } from 'node:crypto';

/** JSON text to be written as it is. */
export class RawJson {
  constructor(readonly json: string) {}
}

// A placeholder no stored string can contain by chance: the process's random nonce behind a
// control character (which JSON.stringify escapes, so the escaped form is what is searched for).
const NONCE = randomBytes(12).toString('hex');
const placeholder = (i: number) => `\u0001${NONCE}:${i}`;

/**
 * JSON.stringify of `obj`, where top-level values that are RawJson are written as their text, in
 * their place (the key order is kept). Only the top level is looked at: a replacer function would
 * make the serializer call back for every value of a large answer.
 */
export function stringifyWithRaw(obj: Record<string, unknown>): string {
  const raws: string[] = [];
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v instanceof RawJson) {
      plain[key] = placeholder(raws.length);
      raws.push(v.json);
    } else plain[key] = v;
  }
  const text = JSON.stringify(plain);
  if (raws.length === 0) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < raws.length; i++) {
    const marker = JSON.stringify(placeholder(i));
    const at = text.indexOf(marker, from);
    if (at < 0) throw new Error('stringifyWithRaw: placeholder not found');
    out += text.slice(from, at) + raws[i];
    from = at + marker.length;
  }
  return out + text.slice(from);
}
