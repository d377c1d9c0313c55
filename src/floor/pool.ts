import { sql } from 'kysely';
import type { Executor } from '../db';
import type { WaveLimits } from './plan/batching';
import { placesOfLine, type ItemSlot, type Location } from './plan/items';
import type { Layout } from './plan/layout';
import { planStillRight, type CurrentPlan, type PlanMade, type SignedOrder } from './plan/plan-reuse';
import { urgencyRanks } from './plan/urgency';
import { requireLayout } from './layout-store';
import type { Planner } from './planner/planner';

/** How many of the most urgent PENDING orders the plan covers, and thus a new wave chooses from. */
const CANDIDATE_POOL = 500;

/** An order of the pool, with what the plan shows of it. */
interface PooledOrder extends SignedOrder {
  externalId: string;
  orderNumber: string;
  priority: string | null;
  dueDate: Date | null;
}

/** A line of an order in the pool, with its product's own place (null when it has none or is unplaced). */
interface PoolLineRow {
  id: string;
  external_id: string;
  order_number: string;
  priority: string | null;
  priority_level: number;
  due_date: Date | null;
  line: number;
  quantity: number;
  product_id: string | null;
  own_aisle: number | null;
  own_position: number | null;
}

/** A slot of a product of the pool's lines, at its placed location. */
interface PoolSlotRow {
  product_id: string;
  code: string;
  quantity: string;
  aisle: number;
  position: number;
}

/**
 * The pool: the most urgent PENDING orders without issues but those `excluded`, most urgent first
 * (priority, then due date, then age), each with its units and the places its placed lines are
 * taken from: a slotted product's slots nearest the depot that hold the line (and its own location
 * for what they cannot), else the product's own location. Two statements, without locks: the lines,
 * then the slots of their products, each slot read once however many lines want its product (one
 * row per line and slot was 29 times as many rows on a floor that keeps products at 29 places).
 * Each join names the tenant as the value it is, so that every table is read by its key even
 * before the tables have statistics (joined to another table's tenant_id, a location was looked for
 * among all of the tenant's, once per line).
 */
async function readPool(db: Executor, tenantId: string, layout: Layout, excluded: readonly string[] = []): Promise<PooledOrder[]> {
  const { rows } = await sql<PoolLineRow>`
    SELECT pool.id, pool.external_id, pool.order_number, pool.priority, pool.priority_level, pool.due_date, i.position AS line, i.quantity, p.id AS product_id,
      own.aisle AS own_aisle, own.position AS own_position
    FROM (
      SELECT id, external_id, order_number, priority, order_urgency(priority) AS priority_level, due_date, created_at FROM orders
      WHERE tenant_id = ${tenantId} AND status = 'PENDING' AND NOT has_issues ${excluded.length > 0 ? sql`AND id <> ALL (${excluded}::uuid[])` : sql``}
      ORDER BY order_urgency(priority), due_date, created_at, id
      LIMIT ${CANDIDATE_POOL}
    ) AS pool
    JOIN order_items i ON i.tenant_id = ${tenantId} AND i.order_id = pool.id
    LEFT JOIN products p ON p.tenant_id = ${tenantId} AND p.id = i.product_id
    LEFT JOIN warehouse_locations own ON own.tenant_id = ${tenantId} AND own.code = p.location_code AND own.aisle IS NOT NULL
    ORDER BY pool.priority_level, pool.due_date, pool.created_at, pool.id, i.position`.execute(db);
  const products = [...new Set(rows.flatMap((row) => (row.product_id === null ? [] : [row.product_id])))];
  // A slot stands at a placed location (PUT /locations keeps it so).
  const slotRows = await sql<PoolSlotRow>`
    SELECT s.product_id, s.location_code AS code, s.quantity, sl.aisle, sl.position
    FROM product_slots s
    JOIN warehouse_locations sl ON sl.tenant_id = ${tenantId} AND sl.code = s.location_code
    WHERE s.tenant_id = ${tenantId} AND s.product_id = ANY (${products}::uuid[])
    ORDER BY s.product_id, s.location_code`.execute(db);
  const slotsOf = new Map<string, ItemSlot<Location>[]>();
  for (const { product_id, code, quantity, aisle, position } of slotRows.rows) {
    const slots = slotsOf.get(product_id) ?? slotsOf.set(product_id, []).get(product_id)!;
    slots.push({ place: { code, aisle, position }, quantity: Number(quantity) });
  }
  const byId = new Map<string, PooledOrder>();
  const levels: number[] = [];
  for (const row of rows) {
    let order = byId.get(row.id);
    if (!order) {
      const dueDate = row.due_date === null ? null : new Date(row.due_date);
      order = { id: row.id, externalId: row.external_id, orderNumber: row.order_number, priority: row.priority, dueDate, units: 0, places: [], urgency: 0, signature: '' };
      byId.set(row.id, order);
      levels.push(row.priority_level);
    }
    order.units += row.quantity;
    // The product's slots, or its own place (null when unplaced) where it has none.
    const own = row.own_aisle !== null && row.own_position !== null ? { aisle: row.own_aisle, position: row.own_position } : null;
    const slots = (row.product_id !== null && slotsOf.get(row.product_id)) || [];
    order.places.push(...placesOfLine(layout, row.quantity, slots, own));
  }
  const pool = [...byId.values()];
  const ranks = urgencyRanks(pool.map((order, index) => ({ priorityLevel: levels[index]!, dueDate: order.dueDate })));
  pool.forEach((order, index) => {
    order.urgency = ranks[index]!;
    order.signature = JSON.stringify([levels[index], order.dueDate, order.units, order.places]);
  });
  return pool;
}

/**
 * The last plan made per tenant, layout and limits, in this process. Planning a pool of 500 costs
 * far more than reading it, and most requests find it as it was or with a cart taken out: the
 * plan is then kept (`planStillRight`, which reads only the pool as it stands, so another process
 * taking a cart or an order changing is seen at once). The oldest entry goes beyond PLANS_KEPT.
 */
const plansMade = new Map<string, PlanMade>();
const PLANS_KEPT = 256;

/**
 * What urgency costs each plan made, worked out at its first read (a second plan of the pool, so
 * not while a wave is being made); the board reads the same plan every few seconds.
 */
const urgencyCosts = new WeakMap<CurrentPlan, number>();

/**
 * The carts of the plan for the tenant's pool as it stands now (but the `excluded` orders): the
 * plan made for an earlier pool while it is still right for this one, else a new one, made on the
 * planner's threads (its search stops at `deadline` with the best plan found).
 */
export async function planPool(
  db: Executor,
  planner: Planner,
  tenantId: string,
  layout: Layout,
  limits: WaveLimits,
  excluded: readonly string[],
  deadline: number,
): Promise<{ pool: PooledOrder[]; plan: CurrentPlan }> {
  const pool = await readPool(db, tenantId, layout, excluded);
  const key = JSON.stringify([tenantId, layout, limits.maxOrders, limits.maxItems]);
  const made = plansMade.get(key);
  const kept = made && planStillRight(layout, made, pool, limits);
  if (kept) return { pool, plan: kept };
  const plan = await planner.run('planCarts', [layout, pool, limits], { deadline });
  plansMade.delete(key);
  plansMade.set(key, { plan, signatures: new Map(pool.map((order) => [order.id, order.signature])), full: pool.length === CANDIDATE_POOL });
  if (plansMade.size > PLANS_KEPT) plansMade.delete(plansMade.keys().next().value!);
  return { pool, plan };
}

/**
 * The plan as the supervisor reads it: every cart in the order they are handed out, each order
 * with its number, priority, due date and units; 409 without a layout, as for making a wave.
 */
export async function loadCartPlan(db: Executor, planner: Planner, tenantId: string, limits: WaveLimits, deadline: number) {
  const layout = await requireLayout(db, tenantId);
  const { pool, plan } = await planPool(db, planner, tenantId, layout, limits, [], deadline);
  const byId = new Map(pool.map((order) => [order.id, order]));
  let cost = plan.greedyDistance === null ? null : urgencyCosts.get(plan);
  if (cost === undefined) {
    cost = await planner.run('urgencyCost', [layout, pool, limits, { distance: plan.distance }], { deadline });
    urgencyCosts.set(plan, cost);
  }
  return {
    carts: plan.carts.map((cart) => ({
      orders: cart.orders.map((id) => {
        const { externalId, orderNumber, priority, dueDate, units } = byId.get(id)!;
        return { externalId, orderNumber, priority, dueDate: dueDate?.toISOString() ?? null, units };
      }),
      units: cart.units,
      distance: cart.distance,
    })),
    distance: plan.distance,
    greedyDistance: plan.greedyDistance,
    urgencyCost: cost,
    poolSize: plan.carts.reduce((sum, cart) => sum + cart.orders.length, 0),
  };
}
