import { sql, type RawBuilder } from 'kysely';
import type { Tx } from '../db';
import type { Bindable } from '../db/prepared';
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
  await sql`SELECT ${recordEvents(tenantId, sql`${JSON.stringify(events)}::jsonb`)}`.execute(tx);
}

/**
 * `emit` as an SQL expression, for a statement that records the events of its own write. `events`
 * is SQL yielding a jsonb array of {event, data}, or NULL for none: the database function
 * (migration 026) is STRICT, so a write without events inserts nothing and fires no trigger. A
 * delivery NOTIFYs the workers, which PostgreSQL does at commit, once per transaction.
 */
export function recordEvents(tenantId: Bindable<string>, events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`record_events(${tenantId}::uuid, ${events}, ${sql.lit(DELIVERIES_CHANNEL)})`;
}
