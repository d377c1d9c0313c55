import type { Tx } from '../db';
import type { DomainEvent } from './types';

/**
 * Records events in the outbox inside the caller's transaction, so they commit (or vanish) with
 * the write that caused them. One statement however many events there are.
 */
export async function emit(tx: Tx, tenantId: string, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx
    .insertInto('events')
    .values(events.map(({ event, data }) => ({ tenant_id: tenantId, event, data: JSON.stringify(data) })))
    .execute();
}
