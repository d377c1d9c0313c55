import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * PINs are stored as scrypt hashes (RFC 7914) with their parameters, `scrypt$N$r$p$salt$hash`
 * (base64url), so the parameters can be raised later without invalidating stored PINs.
 * N = 2^15, r = 8, p = 1 is libsodium's "interactive" level (32 MiB of memory per hash; its time
 * is in docs/console.md). A 6-digit PIN has only a million values, so no KDF makes a stolen hash safe for long; the
 * sign-in limits (limits.ts) and the database's secrecy are what protect it, and the KDF makes
 * each guess offline cost that much.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(pin: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node refuses more than 32 MiB unless told.
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => scrypt(pin, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashPin(pin: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(pin, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `pin` matches `stored`, compared in constant time. */
export async function verifyPin(pin: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(pin, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let noUserHash: Promise<string> | undefined;

/** A hash no PIN matches, verified against when the user is unknown so that the answer takes as long. */
export const unknownUserHash = (): Promise<string> => (noUserHash ??= hashPin(randomBytes(16).toString('hex')));
