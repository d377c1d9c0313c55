import { sql } from 'kysely';
import type { Executor } from './index';

/**
 * How far a listing by `updated_at` stays behind the oldest running write. A transaction takes its
 * start time a moment before it shows in pg_stat_activity; this covers that moment many times over.
 */
export const SETTLE_MARGIN_MS = 1000;

/**
 * The time before which every write of this service has committed or rolled back: the start of the
 * oldest transaction running on the service's connections (its `application_name`), or now, less
 * `SETTLE_MARGIN_MS`. Writes stamp `updated_at` with their transaction's start (`now()`), so one
 * that commits late stamps a time after this: a listing by `updated_at` that stops here never
 * misses a row that commits later. Read it in a statement of its own, before the listing's (whose
 * snapshot then sees every write that ended before it). As text, to keep the microseconds.
 */
export async function settledBefore(db: Executor): Promise<string> {
  const { rows } = await sql<{ settled: string }>`
    SELECT (least(min(xact_start), clock_timestamp()) - ${SETTLE_MARGIN_MS} * interval '1 millisecond')::text AS settled
    FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = current_setting('application_name')`.execute(db);
  return rows[0]!.settled;
}
