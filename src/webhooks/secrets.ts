import { sql } from 'kysely';
import type { Executor } from '../db';
import { open, seal } from '../security/secret-box';

/**
 * Webhook secrets at rest, sealed by the shared secret box (`src/security/secret-box.ts`,
 * AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>`). The webhook's tenant and id are the associated data,
 * so a ciphertext copied onto another webhook row does not decrypt. The previous secret of a
 * rotation is the former current ciphertext, moved as it is.
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

/** Longest overlap a rotation may give the previous secret: seven days. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;

/**
 * The previous secret's ciphertext of the webhooks row `table` while its overlap lasts, else null.
 * Read at send time by the database's clock, so a delivery signs with the secrets current when it goes out.
 */
export const livePreviousSecret = (table: string) =>
  sql<string | null>`CASE WHEN ${sql.ref(`${table}.previous_secret_expires_at`)} > now() THEN ${sql.ref(`${table}.previous_secret_ciphertext`)} END`;

/** The secrets a delivery signs with: the current one, and the previous one during an overlap. */
export function signingSecrets(
  key: Buffer,
  stored: { secret_ciphertext: string; previous_secret_ciphertext: string | null },
  tenantId: string,
  webhookId: string,
): { secret: string; previousSecret: string | null } {
  return {
    secret: decryptSecret(key, stored.secret_ciphertext, tenantId, webhookId),
    previousSecret: stored.previous_secret_ciphertext === null ? null : decryptSecret(key, stored.previous_secret_ciphertext, tenantId, webhookId),
  };
}

/**
 * Makes `secret` the webhook's secret. With an overlap, the secret it replaces keeps signing until
 * the overlap ends; a rotation during an overlap makes the then current secret the previous one and
 * drops the older. Answers the changed row.
 */
export async function rotateSecret(
  executor: Executor,
  key: Buffer,
  target: { tenantId: string; webhookId: string },
  secret: string,
  overlapSeconds: number,
) {
  const { tenantId, webhookId } = target;
  const overlapping = overlapSeconds > 0;
  return executor
    .updateTable('webhooks')
    .set({
      secret_ciphertext: encryptSecret(key, secret, tenantId, webhookId),
      // On the right of SET, secret_ciphertext is the value before this update.
      previous_secret_ciphertext: overlapping ? sql<string>`secret_ciphertext` : null,
      previous_secret_expires_at: overlapping ? sql<Date>`now() + ${overlapSeconds}::integer * interval '1 second'` : null,
      updated_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', webhookId)
    .returning(['id', 'url', 'events', 'is_active', 'created_at', 'updated_at', 'previous_secret_expires_at'])
    .executeTakeFirstOrThrow();
}
