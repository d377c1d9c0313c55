import { open, seal } from '../security/secret-box';

/**
 * Webhook secrets at rest, sealed by the shared secret box (`src/security/secret-box.ts`,
 * AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>`). The webhook's tenant and id are the associated data,
 * so a ciphertext copied onto another webhook row does not decrypt.
 */
const boundTo = (tenantId: string, webhookId: string) => `${tenantId}/${webhookId}`;

export function encryptSecret(key: Buffer, secret: string, tenantId: string, webhookId: string): string {
  return seal(key, secret, boundTo(tenantId, webhookId));
}

export function decryptSecret(key: Buffer, stored: string, tenantId: string, webhookId: string): string {
  try {
    return open(key, stored, boundTo(tenantId, webhookId));
  } catch (cause) {
    throw new Error('unreadable webhook secret', { cause });
  }
}
