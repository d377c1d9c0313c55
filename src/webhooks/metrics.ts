import { sql } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DatabaseHandle } from '../db';
import type { FeatureMetrics } from '../http/metrics';
import type { DeliveryStatus } from './tables';

/** Seconds from an event's commit to its delivery: retries take minutes to hours. */
const DELIVERY_LAG_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600];

/**
 * Webhook deliveries: attempts and their lag as the worker records them, and the backlog read at
 * scrape time (each gauge one query over a partial index, over every tenant; no tenant label, a
 * series per tenant would grow with the tenants).
 */
export class WebhookMetrics {
  readonly #deliveries: Counter<'outcome'>;
  readonly #deliveryLag: Histogram;

  constructor(registry: Registry, database: DatabaseHandle) {
    this.#deliveries = new Counter({
      name: 'pickport_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome: delivered, failed (a retry follows) or dead_letter (the last attempt failed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    this.#deliveryLag = new Histogram({
      name: 'pickport_webhook_delivery_lag_seconds',
      help: 'Seconds from the commit of an event to its successful delivery, retries included',
      buckets: DELIVERY_LAG_BUCKETS,
      registers: [registry],
    });
    for (const outcome of ['delivered', 'failed', 'dead_letter'] as const) this.#deliveries.inc({ outcome }, 0);
    const { db } = database;
    const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(db)).rows[0]?.n ?? 0;
    new Gauge({
      name: 'pickport_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting to be sent (due now or scheduled for a retry), over every tenant',
      registers: [registry],
      async collect() {
        this.set(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`));
      },
    });
    new Gauge({
      name: 'pickport_webhook_dead_letters',
      help: 'Webhook deliveries that failed their last attempt (dead letters), over every tenant',
      registers: [registry],
      async collect() {
        this.set(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'dead_letter'`));
      },
    });
  }

  /** One attempt's outcome; a delivered one also records how long after its event it arrived. */
  deliveryAttempted(outcome: DeliveryStatus, occurredAt: Date): void {
    this.#deliveries.inc({ outcome });
    if (outcome === 'delivered') this.#deliveryLag.observe(Math.max(0, Date.now() - occurredAt.getTime()) / 1000);
  }
}

export const webhookMetrics: FeatureMetrics<WebhookMetrics> = (registry, database) => new WebhookMetrics(registry, database);
