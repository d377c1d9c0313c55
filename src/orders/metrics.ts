import { sql } from 'kysely';
import { Gauge } from 'prom-client';
import type { FeatureMetrics } from '../http/metrics';

/**
 * Orders by status, read at scrape time over every tenant (a count of the table). No tenant
 * label: a series per tenant and status would grow with the tenants; per-tenant figures are in
 * the operator API.
 */
export const orderMetrics: FeatureMetrics<void> = (registry, { db }) => {
  new Gauge({
    name: 'pickport_orders',
    help: 'Orders by status, over every tenant',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const result = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM orders GROUP BY status`.execute(db);
      this.reset();
      for (const row of result.rows) this.set({ status: row.status }, row.n);
    },
  });
};
