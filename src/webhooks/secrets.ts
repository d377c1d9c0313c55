import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest: AES-256-GCM under the deployment's secret key, stored as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). The webhook's tenant and id are bound in as additional
 * data, so a ciphertext copied onto another webhook row does not decrypt.
 */
const VERSION = 'v1';

const boundTo = (tenantId: string, webhookId: string) => Buffer.from(`${tenantId}/${webhookId}`);

export function encryptSecret(key: Buffer, secret: string, tenantId: string, webhookId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(boundTo(tenantId, webhookId));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function decryptSecret(key: Buffer, stored: string, tenantId: string, webhookId: string): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('unreadable webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(boundTo(tenantId, webhookId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
