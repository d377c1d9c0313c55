// A tenant's webhooks and their deliveries, for the management routes: every query is scoped by the tenant.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { DELIVERIES_CHANNEL } from '../events/outbox';
import type { EventName } from '../events/types';
import { decodeCursor } from '../http/cursor';
import { notFound } from '../http/errors';
import { keysetAfter, pageOf } from '../http/pagination';
import { UUID } from '../http/uuid';
import type { DestinationPolicy } from './destination';
import { deadLettersPurged } from '../housekeeping/retention';
import { SAMPLE_PAYLOADS } from './samples';
import type { DeliveriesQuery } from './schemas';
import { encryptSecret, livePreviousSecret, rotateSecret, signingSecrets } from './secrets';
import { sendWebhook, type AttemptOutcome } from './sender';
import type { DeliveryStatus } from './tables';

/** Dead letters re-queued by one replay call; call again for the rest. */
export const REPLAY_BATCH = 500;

const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'is_active', 'created_at', 'updated_at'] as const;

export interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The webhook with its secrets, or 404 (also for an id that is not a UUID). */
export async function findWebhook(db: Executor, tenantId: string, id: string) {
  if (!UUID.test(id)) throw notFound(`Webhook ${id}`);
  const row = await db
    .selectFrom('webhooks')
    .select([...WEBHOOK_COLUMNS, 'secret_ciphertext', livePreviousSecret('webhooks').as('previous_secret_ciphertext')])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(`Webhook ${id}`);
  return row;
}

export async function listWebhooks(db: Executor, tenantId: string): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
}

/** The secret is stored encrypted, bound to the tenant and the webhook's id. */
export async function createWebhook(tx: Tx, secretKey: Buffer, tenantId: string, input: { url: string; events: string[]; secret: string }): Promise<WebhookRow> {
  const id = randomUUID();
  return tx
    .insertInto('webhooks')
    .values({ tenant_id: tenantId, id, url: input.url, events: input.events, secret_ciphertext: encryptSecret(secretKey, input.secret, tenantId, id) })
    .returning(WEBHOOK_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function updateWebhook(
  tx: Tx,
  tenantId: string,
  id: string,
  change: { url?: string | undefined; events?: string[] | undefined; isActive?: boolean | undefined },
): Promise<WebhookRow> {
  const current = await findWebhook(tx, tenantId, id);
  const row = await tx
    .updateTable('webhooks')
    .set({
      url: change.url ?? current.url,
      events: change.events ?? current.events,
      is_active: change.isActive ?? current.is_active,
      updated_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', current.id)
    .returning(WEBHOOK_COLUMNS)
    .executeTakeFirstOrThrow();
  // Reactivation makes the deliveries that waited while it was inactive due.
  if (change.isActive && !current.is_active) await notifyWorkers(tx);
  return row;
}

/** Removes the webhook; its deliveries go with it (ON DELETE CASCADE). */
export async function deleteWebhook(tx: Tx, tenantId: string, id: string): Promise<{ id: string }> {
  const webhook = await findWebhook(tx, tenantId, id);
  await tx.deleteFrom('webhooks').where('tenant_id', '=', tenantId).where('id', '=', webhook.id).execute();
  return { id: webhook.id };
}

export async function rotateWebhookSecret(tx: Tx, secretKey: Buffer, tenantId: string, id: string, secret: string, overlapSeconds: number) {
  const webhook = await findWebhook(tx, tenantId, id);
  return rotateSecret(tx, secretKey, { tenantId, webhookId: webhook.id }, secret, overlapSeconds);
}

export interface TestSend {
  webhookId: string;
  event: EventName;
  eventId: string;
  outcome: AttemptOutcome;
}

/**
 * Sends a sample of `event` (marked test: true) once, without retries. The HTTP call happens
 * outside any transaction; recordTestSend then writes its record in one.
 */
export async function sendTest(
  db: Executor,
  options: { secretKey: Buffer; timeoutMs: number; destinations: DestinationPolicy },
  tenantId: string,
  id: string,
  event: EventName,
): Promise<TestSend> {
  const webhook = await findWebhook(db, tenantId, id);
  const eventId = randomUUID();
  const outcome = await sendWebhook(
    {
      url: webhook.url,
      ...signingSecrets(options.secretKey, webhook, tenantId, webhook.id),
      event,
      eventId,
      timestamp: new Date().toISOString(),
      data: SAMPLE_PAYLOADS[event],
      test: true,
    },
    { timeoutMs: options.timeoutMs, destinations: options.destinations },
  );
  return { webhookId: webhook.id, event, eventId, outcome };
}

export async function recordTestSend(tx: Tx, tenantId: string, { webhookId, event, eventId, outcome }: TestSend): Promise<TestSend> {
  await tx
    .insertInto('webhook_deliveries')
    .values({
      tenant_id: tenantId,
      id: outcome.deliveryId,
      webhook_id: webhookId,
      event_id: eventId,
      event,
      test: true,
      status: outcome.delivered ? 'delivered' : 'failed',
      next_attempt_at: null,
      status_code: outcome.statusCode,
      duration_ms: outcome.durationMs,
      error: outcome.error,
      response_body: outcome.responseBody,
      attempted_at: sql<Date>`now()`,
    })
    .execute();
  return { webhookId, event, eventId, outcome };
}

/**
 * Re-queues up to REPLAY_BATCH dead letters (oldest first) as new deliveries of the same events,
 * marking them replayed; `purged` when retention deleted some the filters name.
 */
export async function replayDeadLetters(
  tx: Tx,
  tenantId: string,
  id: string,
  filters: { from?: string | undefined; to?: string | undefined; event?: string | undefined },
): Promise<{ replayed: number; purged: true | undefined }> {
  const webhook = await findWebhook(tx, tenantId, id);
  const { from, to, event } = filters;
  // Marks the dead letters replayed as it re-queues them; a concurrent or repeated call
  // waits on the row locks and then no longer finds them.
  const result = await sql<{ replayed: number }>`
    WITH picked AS (
      SELECT tenant_id, id FROM webhook_deliveries
      WHERE tenant_id = ${tenantId} AND webhook_id = ${webhook.id} AND status = 'dead_letter'
        ${from ? sql`AND created_at >= ${from}::timestamptz` : sql``}
        ${to ? sql`AND created_at <= ${to}::timestamptz` : sql``}
        ${event ? sql`AND event = ${event}` : sql``}
      ORDER BY created_at
      LIMIT ${REPLAY_BATCH}
      FOR UPDATE
    ),
    marked AS (
      UPDATE webhook_deliveries d SET status = 'replayed'
      FROM picked WHERE d.tenant_id = picked.tenant_id AND d.id = picked.id AND d.status = 'dead_letter'
      RETURNING d.tenant_id, d.webhook_id, d.event_id, d.event
    ),
    requeued AS (
      INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, next_attempt_at)
      SELECT tenant_id, webhook_id, event_id, event, now() FROM marked
      RETURNING 1
    )
    SELECT count(*)::integer AS replayed FROM requeued
  `.execute(tx);
  const replayed = result.rows[0]?.replayed ?? 0;
  if (replayed > 0) await notifyWorkers(tx);
  return { replayed, purged: await deadLettersPurged(tx, tenantId, webhook.id, { from, event }) };
}

/** A page of a webhook's delivery attempts with one of `statuses`, newest first; the total is counted on every page. */
export async function listAttempts(db: Executor, tenantId: string, webhookId: string, query: DeliveriesQuery, statuses: readonly DeliveryStatus[]) {
  const { id } = await findWebhook(db, tenantId, webhookId);
  const limit = query.limit ?? 50;
  const filtered = db
    .selectFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', id)
    .where('status', 'in', query.status ? [query.status as DeliveryStatus] : [...statuses])
    .$if(query.event !== undefined, (q) => q.where('event', '=', query.event as string));
  const after = query.cursor === undefined ? undefined : decodeCursor<[number]>(query.cursor, ['number']);
  const [fetched, counted] = await Promise.all([
    filtered
      .select(['id', 'seq', 'event_id', 'event', 'status', 'attempt', 'status_code', 'duration_ms', 'error', 'response_body', 'test', 'created_at', 'next_attempt_at'])
      .$if(after !== undefined, (q) => q.where(keysetAfter([{ name: 'seq', type: 'bigint' }], after!, 'desc')))
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { limit, ...pageOf(fetched, limit, (last) => [last.seq]), total: Number(counted.total) };
}

async function notifyWorkers(executor: Executor): Promise<void> {
  await sql`SELECT pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(executor);
}
