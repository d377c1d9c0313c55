import { sql } from 'kysely';
import type { Executor } from '../db';
import type { OrderStatus } from '../events/types';
import type { Layout } from '../floor/plan/layout';
import { findLayout } from '../floor/layout-store';
import { routePolyline } from '../floor/plan/progress';
import { aisleX, positionY } from '../floor/plan/layout';
import { listLocations } from '../floor/locations';
import { facesAtMin, openReplenishments } from '../floor/replenishment';
import { slotMismatches } from '../floor/slots';
import { ORDER_STATUSES } from '../orders/schemas';
import type { OrderIssue } from '../orders/tables';
import { listUsers } from '../staff/users';
import { loadPickerWaves, stopStates, type PickerWave } from './picker-view';

/** How many orders with issues the board lists. */
const BOARD_ISSUES = 50;
/** How many products whose slots and stock disagree the board lists. */
const BOARD_SLOT_MISMATCHES = 20;
/** How many open replenishment tasks, first in line, the board lists. */
const BOARD_REPLENISHMENTS = 5;
/** How many pick faces at or below their min the board lists. */
const BOARD_LOW_FACES = 20;

const ISSUE_MESSAGES: Record<OrderIssue['type'], (issue: OrderIssue) => string> = {
  UNRESOLVED_PRODUCT: (issue) => `Product ${issue.productExternalId} (sku ${issue.productSku}) is not in the catalog`,
  INSUFFICIENT_STOCK: (issue) => `Not enough stock of ${issue.productExternalId} (sku ${issue.productSku})`,
};

async function pickingWaves(db: Executor, tenantId: string): Promise<PickerWave[]> {
  const rows = await db.selectFrom('waves').select('id').where('tenant_id', '=', tenantId).where('status', '=', 'PICKING').orderBy('created_at').orderBy('id').execute();
  return loadPickerWaves(db, tenantId, rows.map((row) => row.id));
}

/**
 * The supervisor's board: orders by status, orders with issues, waves in progress, webhooks in
 * trouble, who can pick, products whose slots and stock disagree, open replenishment tasks and the
 * pick faces at or below their min.
 */
export async function loadBoard(db: Executor, tenantId: string) {
  const [counts, issues, waves, failing, deadLetters, users, mismatches, replenishments, lowFaces] = await Promise.all([
    db.selectFrom('orders').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).where('tenant_id', '=', tenantId).groupBy('status').execute(),
    db
      .selectFrom('orders')
      .select(['external_id', 'order_number', 'status', 'issues'])
      .where('tenant_id', '=', tenantId)
      .where('has_issues', '=', true)
      .orderBy('created_at')
      .orderBy('id')
      .limit(BOARD_ISSUES)
      .execute(),
    pickingWaves(db, tenantId),
    failingWebhooks(db, tenantId),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'dead_letter')
      .executeTakeFirstOrThrow(),
    listUsers(db, tenantId),
    slotMismatches(db, tenantId, { limit: BOARD_SLOT_MISMATCHES }),
    openReplenishments(db, tenantId, BOARD_REPLENISHMENTS),
    facesAtMin(db, tenantId, BOARD_LOW_FACES),
  ]);
  const statusCounts = Object.fromEntries(ORDER_STATUSES.map((status) => [status, 0])) as Record<OrderStatus, number>;
  for (const row of counts) statusCounts[row.status] = Number(row.n);
  return {
    statusCounts,
    issues: issues.map((order) => ({
      externalId: order.external_id,
      orderNumber: order.order_number,
      status: order.status,
      issues: order.issues.map((issue) => ({ code: issue.type, message: ISSUE_MESSAGES[issue.type](issue), productExternalId: issue.productExternalId })),
    })),
    waves: waves.map((wave) => ({
      id: wave.id,
      number: wave.number,
      picker: wave.picker,
      progress: wave.progress,
      orders: wave.orders.length,
      orderNumbers: wave.orders.map((order) => order.orderNumber),
      createdAt: wave.createdAt,
    })),
    webhooks: { failing, deadLetters: Number(deadLetters.n) },
    pickers: users.filter((user) => !user.disabled && user.role !== 'packer').map(({ id, username, name }) => ({ id, username, name })),
    slotMismatches: { total: mismatches.pagination.total, products: mismatches.mismatches },
    replenishments,
    lowFaces,
  };
}

/** Active webhooks whose last settled attempt (test sends aside) failed, with the failures since the last success. */
async function failingWebhooks(db: Executor, tenantId: string) {
  const { rows } = await sql<{ id: string; url: string; error: string | null; attempted_at: Date | null; failures: number }>`
    SELECT w.id, w.url, last.error, last.attempted_at,
      (SELECT count(*) FROM webhook_deliveries d
        WHERE d.tenant_id = w.tenant_id AND d.webhook_id = w.id AND NOT d.test AND d.status IN ('failed', 'dead_letter')
          AND d.seq > coalesce((SELECT max(ok.seq) FROM webhook_deliveries ok
                                WHERE ok.tenant_id = w.tenant_id AND ok.webhook_id = w.id AND ok.status = 'delivered' AND NOT ok.test), 0)) AS failures
    FROM webhooks w
    CROSS JOIN LATERAL (
      SELECT d.status, d.error, d.attempted_at FROM webhook_deliveries d
      WHERE d.tenant_id = w.tenant_id AND d.webhook_id = w.id AND NOT d.test AND d.status IN ('delivered', 'failed', 'dead_letter')
      ORDER BY d.seq DESC LIMIT 1
    ) AS last
    WHERE w.tenant_id = ${tenantId} AND w.is_active AND last.status IN ('failed', 'dead_letter')
    ORDER BY w.created_at, w.id`.execute(db);
  return rows.map((row) => ({
    id: row.id,
    url: row.url,
    consecutiveFailures: Number(row.failures),
    lastError: row.error,
    lastAttemptAt: row.attempted_at ? new Date(row.attempted_at).toISOString() : null,
  }));
}

/** What the supervisor's plan draws: the layout, the placed locations, and each PICKING wave's route over them. */
export async function loadFloor(db: Executor, tenantId: string) {
  const [layout, { locations }, waves] = await Promise.all([findLayout(db, tenantId), listLocations(db, tenantId), pickingWaves(db, tenantId)]);
  return {
    layout: layout ?? null,
    locations,
    waves: layout ? waves.map((wave) => floorWave(layout, wave)) : [],
  };
}

function floorWave(layout: Layout, wave: PickerWave) {
  const states = stopStates(wave);
  return {
    id: wave.id,
    number: wave.number,
    picker: wave.picker,
    policy: wave.policy,
    distance: wave.distance,
    path: routePolyline(layout, wave.stops),
    stops: wave.stops.map((stop, index) => ({
      seq: stop.seq,
      locationCode: stop.locationCode,
      aisle: stop.aisle,
      position: stop.position,
      x: aisleX(layout, stop.aisle),
      y: positionY(layout, stop.position),
      done: states[index]!.done,
    })),
  };
}
