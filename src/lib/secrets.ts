// Passwords (Argon2id, memory-hard) and API keys (random, compared in constant time).
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The Argon2 binding, loaded on the first password operation rather than at start. */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'));

const API_KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A 32-character alphanumeric key, as Zulip issues. */
export function generateApiKey(): string {
  const bytes = randomBytes(32);
  let out = '';
  for (const b of bytes) out += API_KEY_ALPHABET[b % API_KEY_ALPHABET.length];
  return out;
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export async function hashPassword(password: string): Promise<string> {
  const { hash } = await loadArgon2();
  // Argon2id with 19 MiB and 2 passes: OWASP's minimum recommendation, quick enough for logins.
  return hash(password, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
}

/** A hash of a random password, verified against when the user is unknown, so both paths cost the same. */
let decoyHash: Promise<string> | undefined;

export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  const { verify } = await loadArgon2();
  if (!storedHash) {
    decoyHash ??= hashPassword(generatePassword());
    await verify(await decoyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** Zulip's PASSWORD_MAX_LENGTH. */
export const PASSWORD_MAX_LENGTH = 100;

/**
 * Zulip's password strength rule as far as Confab applies it: at least the configured minimum
 * length (CONFAB_PASSWORD_MIN_LENGTH; 0 accepts any) and at most PASSWORD_MAX_LENGTH characters.
 * Zulip's zxcvbn guess estimate is reported to clients but not computed here.
 */
export function passwordStrongEnough(password: string, minLength: number): boolean {
  const length = [...password].length;
  return length >= minLength && length <= PASSWORD_MAX_LENGTH;
}

export function constantTimeEqual(a: string, b: string): boolean {
  return constantTimeEqualBytes(Buffer.from(a), Buffer.from(b));
}

/** constantTimeEqual of byte strings a caller already holds (no conversion per comparison). */
export function constantTimeEqualBytes(ab: Buffer, bb: Buffer): boolean {
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
