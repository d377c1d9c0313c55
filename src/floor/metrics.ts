import { sql } from 'kysely';
import { Gauge } from 'prom-client';
import type { FeatureMetrics } from '../http/metrics';

/** Waves being picked, read at scrape time over every tenant (no tenant label, as for orders). */
export const floorMetrics: FeatureMetrics<void> = (registry, { db }) => {
  new Gauge({
    name: 'pickport_waves_in_progress',
    help: 'Waves being picked (status PICKING), over every tenant',
    registers: [registry],
    async collect() {
      const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM waves WHERE status = 'PICKING'`.execute(db);
      this.set(result.rows[0]?.n ?? 0);
    },
  });
};
