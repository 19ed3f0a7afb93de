// End-to-end encryption of mobile push payloads, as Zulip's clients expect it: the client's
// push_key is one byte naming the cryptosystem (0x31: libsodium's secretbox, XSalsa20-Poly1305)
// and a 32-byte key; the server sends base64(nonce || secretbox(plaintext)), so the push service,
// FCM and APNs carry only ciphertext.
import { randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';

export const SECRETBOX = 0x31;

export function encryptPushPayload(pushKeyBase64: string, plaintext: string): string {
  const key = Buffer.from(pushKeyBase64, 'base64');
  if (key.length !== 33 || key[0] !== SECRETBOX) throw new Error('unsupported push key');
  const nonce = randomBytes(24);
  const sealed = xsalsa20poly1305(new Uint8Array(key.subarray(1)), new Uint8Array(nonce)).encrypt(new TextEncoder().encode(plaintext));
  return Buffer.concat([nonce, Buffer.from(sealed)]).toString('base64');
}

/** The inverse, for tests and tools: the plaintext of an encrypted_data value. */
export function decryptPushPayload(pushKeyBase64: string, encryptedBase64: string): string {
  const key = Buffer.from(pushKeyBase64, 'base64');
  const data = Buffer.from(encryptedBase64, 'base64');
  const opened = xsalsa20poly1305(new Uint8Array(key.subarray(1)), new Uint8Array(data.subarray(0, 24))).decrypt(new Uint8Array(data.subarray(24)));
  return new TextDecoder().decode(opened);
}
