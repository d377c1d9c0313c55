import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../config';
import type { Db, Executor } from '../db';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency';

/*
 * Housekeeping: retention deletes what no one needs any more, across features (settled webhook
 * attempts, the events they were for, idempotency answers past their 24 hours). It works by SQL
 * alone and imports no feature; the features' own passes are handed to its loop (./index.ts).
 */

export type RetentionConfig = Pick<Config, 'retentionDays'>;
export type RetentionLog = Pick<FastifyBaseLogger, 'info' | 'error'>;

/** Rows per delete: each batch is its own short transaction. */
const BATCH = 1000;
const PAUSE_BETWEEN_BATCHES_MS = 20;
/** Between passes. */
const PASS_INTERVAL_MS = 5 * 60_000;
/**
 * From start to the first pass. On the embedded database a pass runs on the process's one
 * connection and blocks it, so run at start it delayed the server's listening and its first
 * answers (docs/benchmarks.md, the start); a few seconds later it costs what any later pass costs.
 */
export const FIRST_PASS_DELAY_MS = 10_000;
const DAY_MS = 24 * 60 * 60_000;

export interface PurgeCounts {
  deliveries: number;
  events: number;
  idempotencyAnswers: number;
}

/**
 * Deletes up to a batch of settled attempts (delivered, failed and superseded by their retry,
 * dead letters and replayed dead letters) created before `cutoff`; pending rows are never touched.
 * Rows a replay or the worker holds are skipped, never waited for. Records up to when the dead
 * letters of each webhook and event kind were purged, for replay to report.
 */
async function purgeDeliveriesBatch(db: Db, cutoff: Date): Promise<number> {
  const result = await sql<{ deleted: number }>`
    WITH old AS (
      SELECT tenant_id, id FROM webhook_deliveries
      WHERE status <> 'pending' AND created_at < ${cutoff}
      ORDER BY created_at
      LIMIT ${BATCH}
      FOR UPDATE SKIP LOCKED
    ),
    deleted AS (
      DELETE FROM webhook_deliveries d USING old
      WHERE d.tenant_id = old.tenant_id AND d.id = old.id
      RETURNING d.tenant_id, d.webhook_id, d.event, d.status, d.created_at
    ),
    dead AS (
      INSERT INTO webhook_dead_letters_purged AS p (tenant_id, webhook_id, event, purged_through)
      SELECT tenant_id, webhook_id, event, max(created_at) FROM deleted
      WHERE status = 'dead_letter'
      GROUP BY tenant_id, webhook_id, event
      ON CONFLICT (tenant_id, webhook_id, event)
      DO UPDATE SET purged_through = greatest(p.purged_through, excluded.purged_through)
    )
    SELECT count(*)::integer AS deleted FROM deleted
  `.execute(db);
  return result.rows[0]?.deleted ?? 0;
}

/**
 * Deletes up to a batch of one tenant's events that occurred before `cutoff` and that no
 * delivery still needs: none pending (the worker reads the event to send it) and none
 * dead-lettered (replay sends it again).
 */
async function purgeEventsBatch(db: Db, tenantId: string, cutoff: Date): Promise<number> {
  const result = await sql`
    DELETE FROM events e USING (
      SELECT tenant_id, id FROM events old
      WHERE tenant_id = ${tenantId} AND occurred_at < ${cutoff}
        AND NOT EXISTS (
          SELECT FROM webhook_deliveries d
          WHERE d.tenant_id = old.tenant_id AND d.event_id = old.id AND d.status IN ('pending', 'dead_letter')
        )
      ORDER BY occurred_at
      LIMIT ${BATCH}
      FOR UPDATE SKIP LOCKED
    ) old
    WHERE e.tenant_id = old.tenant_id AND e.id = old.id
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

export interface PassOptions {
  /** Between batches, so the writes a batch made wait get the database first. */
  pauseMs?: number;
  /** Ends the pass after the batch under way. */
  signal?: AbortSignal;
}

/** Runs `batch` until it deletes less than a full batch (or the pass is stopped); returns the total. */
async function drain(batch: () => Promise<number>, { pauseMs = PAUSE_BETWEEN_BATCHES_MS, signal }: PassOptions): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const deleted = await batch();
    total += deleted;
    if (deleted < BATCH) break;
    await sleep(pauseMs);
  }
  return total;
}

/**
 * One retention pass: settled delivery attempts and dead letters older than the retention period,
 * then the events no delivery needs any more, then idempotency answers past their 24 hours.
 * Any number of passes may run at once: batches skip the rows another one holds.
 */
export async function purgeOnce(
  db: Db,
  config: RetentionConfig,
  now: Date = new Date(),
  options: PassOptions = {},
): Promise<PurgeCounts> {
  const counts: PurgeCounts = { deliveries: 0, events: 0, idempotencyAnswers: 0 };
  if (config.retentionDays !== undefined) {
    const cutoff = new Date(now.getTime() - config.retentionDays * DAY_MS);
    counts.deliveries = await drain(() => purgeDeliveriesBatch(db, cutoff), options);
    // Events by tenant, so each batch walks the (tenant, time) index from its oldest entry.
    const tenants = await sql<{ id: string }>`SELECT id FROM tenants ORDER BY id`.execute(db);
    for (const { id } of tenants.rows) counts.events += await drain(() => purgeEventsBatch(db, id, cutoff), options);
  }
  // Writes purge these too, one batch a minute at most; a pass catches up with whatever that left.
  counts.idempotencyAnswers = await drain(() => purgeExpiredIdempotencyKeys(db, now), options);
  return counts;
}

/**
 * Whether retention deleted dead letters of this webhook in the period and event kind a replay
 * names (a period reaches them when it starts at or before the newest one deleted).
 */
export async function deadLettersPurged(
  db: Executor,
  tenantId: string,
  webhookId: string,
  filters: { from?: string | undefined; event?: string | undefined },
): Promise<true | undefined> {
  const found = await sql`
    SELECT FROM webhook_dead_letters_purged
    WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId}
      ${filters.from ? sql`AND purged_through >= ${filters.from}::timestamptz` : sql``}
      ${filters.event ? sql`AND event = ${filters.event}` : sql``}
    LIMIT 1
  `.execute(db);
  return found.rows.length > 0 ? (true as const) : undefined;
}

/** Another feature's periodic work, run after each retention pass; answers counts to log when any is not 0. */
export interface HousekeepingPass {
  name: string;
  run(signal: AbortSignal): Promise<Record<string, number>>;
}

export interface RetentionOptions {
  db: Db;
  config: RetentionConfig;
  log: RetentionLog;
  /** Run after each retention pass, one after the other (the insight's rollup). */
  passes?: HousekeepingPass[];
  /** FIRST_PASS_DELAY_MS unless a test shortens it. */
  firstPassDelayMs?: number;
}

/**
 * The retention loop: a pass shortly after start, then one every few minutes, each followed by
 * the other passes given. `stop()` lets the batch under way finish.
 */
export class RetentionLoop {
  readonly #options: RetentionOptions;
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(options: RetentionOptions) {
    this.#options = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { db, config, log, passes = [], firstPassDelayMs = FIRST_PASS_DELAY_MS } = this.#options;
    await sleep(firstPassDelayMs, undefined, { signal: this.#stopping.signal }).catch(() => {});
    while (!this.#stopping.signal.aborted) {
      try {
        const counts = await purgeOnce(db, config, new Date(), { signal: this.#stopping.signal });
        if (counts.deliveries + counts.events + counts.idempotencyAnswers > 0) log.info(counts, 'retention pass purged old rows');
      } catch (error) {
        log.error({ err: error }, 'retention pass failed; trying again at the next one');
      }
      for (const pass of passes) {
        if (this.#stopping.signal.aborted) break;
        try {
          const counts = await pass.run(this.#stopping.signal);
          if (Object.values(counts).some((count) => count > 0)) log.info(counts, `${pass.name} pass done`);
        } catch (error) {
          log.error({ err: error }, `${pass.name} pass failed; trying again at the next one`);
        }
      }
      await sleep(PASS_INTERVAL_MS, undefined, { signal: this.#stopping.signal }).catch(() => {});
    }
  }
}
