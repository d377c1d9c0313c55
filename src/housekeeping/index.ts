import type { Db } from '../db';
import { rollUpInsight } from '../insight/rollup';
import { RetentionLoop, type RetentionConfig, type RetentionLog } from './retention';

export interface HousekeepingOptions {
  db: Db;
  config: RetentionConfig;
  log: RetentionLog;
  /** FIRST_PASS_DELAY_MS unless a test shortens it. */
  firstPassDelayMs?: number;
}

/**
 * The housekeeping a process sending webhooks runs beside them (`pickport serve` with its worker,
 * `pickport worker`): retention, then the insight's rollup of the hours that have closed, so that
 * an hour is counted before retention could delete its events. The features' passes are named
 * here, where the service is put together, not by the delivery worker or the retention loop.
 */
export function startHousekeeping({ db, config, log, firstPassDelayMs }: HousekeepingOptions): RetentionLoop {
  const loop = new RetentionLoop({
    db,
    config,
    log,
    passes: [{ name: 'insight rollup', run: (signal) => rollUpInsight(db, { signal }) }],
    ...(firstPassDelayMs !== undefined ? { firstPassDelayMs } : {}),
  });
  loop.start();
  return loop;
}
