import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Values encrypted at rest (webhook secrets, stored idempotent responses): AES-256-GCM under the
 * deployment's secret key (`config.secretKey`, 32 bytes), as `v1.<iv>.<tag>.<ciphertext>`
 * (base64url parts, 12-byte random IV, 16-byte tag). The associated data names where the value
 * belongs (for example its row's key): it is not stored, but must be the same to open the box, so
 * a ciphertext copied elsewhere does not decrypt.
 */
const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/** Encrypts `plaintext` (UTF-8) bound to `associatedData`. */
export function seal(key: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Decrypts what `seal` produced with the same key and associated data; throws if it was altered, moved or sealed under another key. */
export function open(key: Buffer, sealed: string, associatedData: string): string {
  const [version, iv, tag, ciphertext, extra] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined || extra !== undefined) throw new Error('not a sealed value');
  const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
