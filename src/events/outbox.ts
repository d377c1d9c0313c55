import { sql, type RawBuilder } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from './types';

/** The NOTIFY channel that wakes delivery workers when deliveries become due. */
export const DELIVERIES_CHANNEL = 'pickport_webhook_deliveries';

/**
 * Records events in the outbox inside the caller's transaction, so they commit (or vanish) with
 * the write that caused them, and fans each one out to a delivery row per active webhook of the
 * tenant subscribed to it. One statement however many events there are.
 */
export async function emit(tx: Tx, tenantId: string, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql`WITH ${recordEvents(tenantId, sql`${JSON.stringify(events)}::jsonb`)} SELECT 1`.execute(tx);
}

/**
 * `emit` as common table expressions, for a statement that records the events of its own write
 * (named recorded_events and recorded_deliveries). `events` is SQL yielding a jsonb array of
 * {event, data}, or NULL for none. A delivery NOTIFYs the workers, which PostgreSQL does at commit,
 * once per transaction.
 */
export function recordEvents(tenantId: string, events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`recorded_events AS (
      INSERT INTO events (tenant_id, event, data)
      SELECT ${tenantId}, e.item->>'event', e.item->'data'
      FROM jsonb_array_elements(${events}) WITH ORDINALITY AS e(item, ord)
      ORDER BY e.ord
      RETURNING id, event
    ), recorded_deliveries AS (
      INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, next_attempt_at)
      SELECT w.tenant_id, w.id, ne.id, ne.event, now()
      FROM recorded_events ne
      JOIN webhooks w ON w.tenant_id = ${tenantId} AND w.is_active AND ne.event = ANY (w.events)
      RETURNING pg_notify(${DELIVERIES_CHANNEL}, '')
    )`;
}
