import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../config';
import type { DatabaseHandle, Db } from '../db';
import type { Metrics } from '../http/metrics';
import { destinationAttributes, inSpan, type SpanNotes } from '../http/tracing';
import { DELIVERIES_CHANNEL } from '../events/outbox';
import { destinationPolicy } from './destination';
import { webhookMetrics, type WebhookMetrics } from './metrics';
import { livePreviousSecret, signingSecrets } from './secrets';
import { sendWebhook } from './sender';
import type { DeliveryStatus } from './tables';

export type WorkerConfig = Pick<Config, 'secretKey' | 'nodeEnv' | 'webhookTimeoutMs' | 'webhookRetryDelaysMs' | 'webhookAllowPrivate'>;
export type WorkerLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

export interface DeliveryWorkerOptions {
  database: DatabaseHandle;
  config: WorkerConfig;
  log: WorkerLog;
  /** Sends in flight at once. */
  concurrency?: number;
  /** Longest sleep between looks at the table when no NOTIFY arrives. */
  pollIntervalMs?: number;
  /** The process's metrics, where the worker counts each attempt's outcome and a delivery's lag. */
  metrics?: Metrics;
  /** From start to the first look at the queue unless a NOTIFY comes first; none unless set (the service sets FIRST_CLAIM_DELAY_MS). */
  firstClaimDelayMs?: number;
}

/**
 * How long `pickport serve`'s worker leaves the embedded engine's one connection to the first
 * requests before its first look at the queue: on an engine just opened, the claim and the next
 * due time are slow to plan and run (docs/benchmarks.md), and the first /health waited behind
 * them. A NOTIFY (an event committed meanwhile) still wakes it at once; deliveries already due
 * wait that much longer than the restart itself made them.
 */
export const FIRST_CLAIM_DELAY_MS = 1_000;

interface ClaimedDelivery {
  tenant_id: string;
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  attempt: number;
  lease_id: string;
  url: string;
  secret_ciphertext: string;
  /** Null unless a rotation's overlap is running. */
  previous_secret_ciphertext: string | null;
  data: unknown;
  occurred_at: Date;
}

/** What one attempt did to its claimed row. */
interface AttemptRecord {
  tenant_id: string;
  id: string;
  lease_id: string;
  /** The X-Service-Delivery-Id that was sent; it becomes the row's id. */
  delivery_id: string;
  status: DeliveryStatus;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  /** Set when a retry follows. */
  retry_in_ms: number | null;
}

/**
 * Records attempts on their rows and creates the retry rows, in one statement. Only rows whose
 * lease the worker still holds: a worker that outlived its lease must not record over the worker
 * that took the row after it.
 */
async function recordAttempts(db: Db, records: AttemptRecord[]): Promise<void> {
  await sql`
    WITH outcome AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS o(
        tenant_id uuid, id uuid, lease_id uuid, delivery_id uuid, status text, status_code integer,
        duration_ms integer, error text, response_body text, retry_in_ms integer)
    ),
    done AS (
      UPDATE webhook_deliveries d
      SET id = o.delivery_id, status = o.status, status_code = o.status_code, duration_ms = o.duration_ms,
        error = o.error, response_body = o.response_body, attempted_at = now(), lease_id = NULL,
        next_attempt_at = now() + o.retry_in_ms * interval '1 millisecond'
      FROM outcome o
      WHERE d.tenant_id = o.tenant_id AND d.id = o.id AND d.status = 'pending' AND d.lease_id = o.lease_id
      RETURNING d.tenant_id, d.webhook_id, d.event_id, d.event, d.attempt, d.next_attempt_at
    )
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, attempt, next_attempt_at)
    SELECT tenant_id, webhook_id, event_id, event, attempt + 1, next_attempt_at
    FROM done WHERE next_attempt_at IS NOT NULL
  `.execute(db);
}

/** Past the request timeout, the time a worker gets to record an attempt before the row is due again. */
const LEASE_MARGIN_MS = 5_000;
/** After its listening connection is lost (a restarted pooler, a failover), the worker listens again this much later. */
const RELISTEN_DELAY_MS = 1_000;
/** Jitter adds up to this share of a retry delay, and never more than five minutes. */
const JITTER_SHARE = 0.1;
const JITTER_MAX_MS = 5 * 60_000;

/**
 * The delivery worker: claims due delivery rows, sends them, records each attempt and schedules
 * the retry or the dead letter. Any number of workers in any number of processes can run against
 * one database: a claim is a short transaction (`FOR UPDATE SKIP LOCKED`) that moves the row's
 * `next_attempt_at` to the end of a lease longer than the request timeout, so no other worker
 * takes it while it is in flight, and it becomes due again by itself if this worker dies.
 */
export class DeliveryWorker {
  readonly #db: Db;
  readonly #database: DatabaseHandle;
  readonly #config: WorkerConfig;
  readonly #log: WorkerLog;
  readonly #metrics: WebhookMetrics | undefined;
  readonly #concurrency: number;
  readonly #pollIntervalMs: number;
  readonly #leaseMs: number;
  /** A saturated worker claims again once this few sends are left in flight: fewer, larger claims. */
  readonly #refillAt: number;
  readonly #firstClaimDelayMs: number;
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #loop: Promise<void> | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #relistenTimer: NodeJS.Timeout | undefined;
  #wakeRequested = false;
  #wakeUp: (() => void) | undefined;
  /** The last claim took every free slot, so more may be due than were taken. */
  #saturated = false;
  #unrecorded: { record: AttemptRecord; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #recording: Promise<void> | undefined;

  constructor(options: DeliveryWorkerOptions) {
    this.#database = options.database;
    this.#db = options.database.db;
    this.#config = options.config;
    this.#log = options.log;
    this.#metrics = options.metrics?.feature(webhookMetrics);
    this.#concurrency = options.concurrency ?? 32;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.#leaseMs = options.config.webhookTimeoutMs + LEASE_MARGIN_MS;
    this.#refillAt = Math.floor((this.#concurrency * 3) / 4);
    this.#firstClaimDelayMs = options.firstClaimDelayMs ?? 0;
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    await this.#listen();
    this.#loop = this.#run();
  }

  /** Stops claiming, lets the attempts in flight finish and be recorded (bounded by the timeout). */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#relistenTimer);
    this.#wake();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
    await this.#recording;
    await this.#unlisten?.();
  }

  /**
   * NOTIFY wakes the worker at an event's commit. Without it the worker still finds every due
   * delivery by looking at the queue every poll interval, so a lost listening connection costs
   * latency, not deliveries; it is listened again until that succeeds.
   */
  async #listen(): Promise<void> {
    const unlisten = await this.#database.listen(DELIVERIES_CHANNEL, () => this.#wake(), () => this.#listenLater('lost the connection listening for new deliveries'));
    if (this.#running) this.#unlisten = unlisten;
    else await unlisten();
  }

  #listenLater(why: string, err?: unknown): void {
    this.#unlisten = undefined;
    if (!this.#running) return;
    this.#log.warn({ err }, `${why}; looking at the queue every ${this.#pollIntervalMs} ms until it listens again`);
    this.#relistenTimer = setTimeout(() => {
      this.#listen().then(
        // Events committed meanwhile were not announced.
        () => this.#wake(),
        (error: unknown) => this.#listenLater('cannot listen for new deliveries', error),
      );
    }, RELISTEN_DELAY_MS);
  }

  #wake(): void {
    this.#wakeRequested = true;
    const wakeUp = this.#wakeUp;
    this.#wakeUp = undefined;
    wakeUp?.();
  }

  async #sleep(ms: number): Promise<void> {
    if (this.#wakeRequested || !this.#running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wakeUp = undefined;
        resolve();
      }, ms);
      this.#wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #run(): Promise<void> {
    if (this.#firstClaimDelayMs > 0) await this.#sleep(this.#firstClaimDelayMs);
    while (this.#running) {
      this.#wakeRequested = false;
      let sleepMs = this.#pollIntervalMs;
      try {
        const free = this.#concurrency - this.#inFlight.size;
        if (free > 0) {
          const claimed = await this.#claim(free);
          for (const delivery of claimed) this.#dispatch(delivery);
          this.#saturated = claimed.length === free;
          if (this.#saturated && this.#inFlight.size <= this.#refillAt) continue;
          if (claimed.length === 0) sleepMs = Math.min(this.#pollIntervalMs, Math.max(10, await this.#nextDueInMs()));
        } else {
          this.#saturated = true;
        }
      } catch (error) {
        this.#log.error({ err: error }, 'webhook worker could not read the delivery queue; retrying');
      }
      await this.#sleep(sleepMs);
    }
  }

  #dispatch(delivery: ClaimedDelivery): void {
    const span = () => ({ 'pickport.event_id': delivery.event_id, 'pickport.event': delivery.event, 'pickport.webhook_id': delivery.webhook_id, 'pickport.webhook.attempt': delivery.attempt, ...destinationAttributes(delivery.url) });
    const task: Promise<void> = inSpan('webhook delivery', span, (notes) => this.#attempt(delivery, notes), { kind: 'client', root: true })
      .catch((error: unknown) => {
        this.#log.error({ err: error, webhookId: delivery.webhook_id, eventId: delivery.event_id }, 'webhook attempt failed to run');
      })
      .finally(() => {
        this.#inFlight.delete(task);
        if (this.#saturated && this.#inFlight.size <= this.#refillAt) this.#wake();
      });
    this.#inFlight.add(task);
  }

  async #attempt(delivery: ClaimedDelivery, span?: SpanNotes): Promise<void> {
    const outcome = await sendWebhook(
      {
        url: delivery.url,
        ...signingSecrets(this.#config.secretKey, delivery, delivery.tenant_id, delivery.webhook_id),
        event: delivery.event,
        eventId: delivery.event_id,
        timestamp: delivery.occurred_at.toISOString(),
        data: delivery.data,
      },
      { timeoutMs: this.#config.webhookTimeoutMs, destinations: destinationPolicy(this.#config) },
    );
    const retryInMs = outcome.delivered ? null : this.#retryDelayMs(delivery.attempt, outcome.retryAfterMs);
    const status: DeliveryStatus = outcome.delivered ? 'delivered' : retryInMs === null ? 'dead_letter' : 'failed';
    this.#metrics?.deliveryAttempted(status, delivery.occurred_at);
    span?.set({ 'pickport.webhook.outcome': status, 'pickport.webhook.delivery_id': outcome.deliveryId, 'http.response.status_code': outcome.statusCode ?? undefined });
    if (outcome.error) span?.fail(outcome.error);
    const log = { webhookId: delivery.webhook_id, eventId: delivery.event_id, deliveryId: outcome.deliveryId, attempt: delivery.attempt };
    if (outcome.delivered) this.#log.debug(log, 'webhook delivered');
    else this.#log.info({ ...log, error: outcome.error, statusCode: outcome.statusCode, status }, 'webhook attempt failed');
    // The slot frees once the receiver has answered; the record joins the next batch write.
    const recorded = this.#record({
      tenant_id: delivery.tenant_id,
      id: delivery.id,
      lease_id: delivery.lease_id,
      delivery_id: outcome.deliveryId,
      status,
      status_code: outcome.statusCode,
      duration_ms: outcome.durationMs,
      error: outcome.error,
      response_body: outcome.responseBody,
      retry_in_ms: retryInMs,
    });
    recorded.then(
      // A new retry row: the loop sleeps only until it is due.
      () => retryInMs !== null && this.#wake(),
      (error: unknown) => this.#log.error({ err: error, ...log }, 'webhook attempt could not be recorded; it is sent again when its lease ends'),
    );
  }

  /** The delay before the attempt after `attempt`, or null when that was the last one. */
  #retryDelayMs(attempt: number, retryAfterMs: number | null): number | null {
    const delays = this.#config.webhookRetryDelaysMs;
    const scheduled = delays[attempt - 1];
    if (scheduled === undefined) return null;
    // A receiver's Retry-After may push the retry later, never past the longest configured delay.
    const base = retryAfterMs === null ? scheduled : Math.max(scheduled, Math.min(retryAfterMs, Math.max(...delays)));
    return Math.round(base + Math.random() * Math.min(base * JITTER_SHARE, JITTER_MAX_MS));
  }

  async #claim(limit: number): Promise<ClaimedDelivery[]> {
    const result = await sql<ClaimedDelivery>`
      WITH due AS (
        SELECT d.tenant_id, d.id
        FROM webhook_deliveries d
        JOIN webhooks w ON w.tenant_id = d.tenant_id AND w.id = d.webhook_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND w.is_active
        ORDER BY d.next_attempt_at
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET next_attempt_at = now() + ${this.#leaseMs}::integer * interval '1 millisecond', lease_id = gen_random_uuid()
      FROM due, webhooks w, events e
      WHERE d.tenant_id = due.tenant_id AND d.id = due.id
        AND w.tenant_id = d.tenant_id AND w.id = d.webhook_id
        AND e.tenant_id = d.tenant_id AND e.id = d.event_id
      RETURNING d.tenant_id, d.id, d.webhook_id, d.event_id, d.event, d.attempt, d.lease_id,
        w.url, w.secret_ciphertext, ${livePreviousSecret('w')} AS previous_secret_ciphertext, e.data, e.occurred_at
    `.execute(this.#db);
    return result.rows;
  }

  /**
   * Queues the attempt's record; records queued while one batch is being written go out together
   * in the next, so a busy worker writes many attempts per statement.
   */
  #record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#unrecorded.push({ record, resolve, reject });
      if (!this.#recording) this.#recording = this.#writeRecords();
    });
  }

  async #writeRecords(): Promise<void> {
    while (this.#unrecorded.length > 0) {
      const batch = this.#unrecorded.splice(0);
      try {
        await recordAttempts(this.#db, batch.map((entry) => entry.record));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.#recording = undefined;
  }

  /** Milliseconds until the earliest pending delivery of an active webhook is due (the poll interval when none is). */
  async #nextDueInMs(): Promise<number> {
    const result = await sql<{ wait_ms: number }>`
      SELECT (extract(epoch FROM d.next_attempt_at - now()) * 1000)::float8 AS wait_ms
      FROM webhook_deliveries d
      JOIN webhooks w ON w.tenant_id = d.tenant_id AND w.id = d.webhook_id
      WHERE d.status = 'pending' AND w.is_active
      ORDER BY d.next_attempt_at
      LIMIT 1
    `.execute(this.#db);
    return result.rows[0]?.wait_ms ?? this.#pollIntervalMs;
  }
}

/** Starts a worker; `stop()` it before closing the database. */
export async function startDeliveryWorker(options: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const worker = new DeliveryWorker(options);
  await worker.start();
  return worker;
}
