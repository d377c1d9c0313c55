import { sql } from 'kysely';
import type { Executor } from '../db';
import type { WaveLimits } from './plan/batching';
import { readSettings } from '../settings/store';
import { fromDepot, type ItemSlot, type Location } from './plan/items';
import { placesOfLine } from './plan/line-places';
import type { Layout } from './plan/layout';
import { planStillRight, type CurrentPlan, type PlanMade, type SignedOrder } from './plan/plan-reuse';
import { urgencyRanks } from './plan/urgency';
import { requireLayout } from './layout-store';
import type { Planner } from './planner/planner';
import type { Demand } from './replenishment';
import { facesOf, freeSlots, reserveOf } from './slots';
import { firstDayNow } from './plan/fefo';

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
  product_external_id: string;
  product_id: string | null;
  own_aisle: number | null;
  own_position: number | null;
}

/** An order of the pool held off the carts: what its products need that their slots cannot give it. */
export interface HeldOrder {
  id: string;
  externalId: string;
  orderNumber: string;
  priority: string | null;
  dueDate: Date | null;
  short: { productExternalId: string; needed: number; available: number }[];
}

/** The pool as read: the orders the carts are planned from, those held, and the replenishments they ask for. */
interface PoolRead {
  pool: PooledOrder[];
  held: HeldOrder[];
  demands: Demand[];
  /** Whether the read reached CANDIDATE_POOL orders, held ones included. */
  full: boolean;
}

/** What a slotted product of the pool has left to give the orders read so far. */
interface SlotStock {
  faces: ItemSlot<Location>[];
  reserve: ItemSlot<Location>[];
  facesLeft: number;
  reserveLeft: number;
}

const units = (slots: readonly ItemSlot<Location>[]) => slots.reduce((sum, slot) => sum + slot.quantity, 0);

/**
 * The pool: the most urgent PENDING orders without issues but those `excluded`, most urgent first
 * (priority, then due date, then age), each with its units and the places its placed lines are
 * taken from. Two statements, without locks: the lines, then the slots of their products (freeSlots:
 * the units free at each, net of what PICKING waves plan to take), each slot read once however many
 * lines want its product. Each join names the tenant as the value it is, so that every table is
 * read by its key even before the tables have statistics (joined to another table's tenant_id, a
 * location was looked for among all of the tenant's, once per line).
 *
 * Pick faces first: a product with slots is taken from its pick faces, and from its reserve slots
 * only with the warehouse's pickFromReserve when the faces cannot cover it; a product without slots
 * from its own location, as ever. Orders claim slotted units in the pool's order (the most urgent
 * first): an order whose slotted products the units left cannot cover is held off the carts (none
 * of its units claimed), so that no cart of the plan, whatever its place in the plan, carries an
 * order its faces cannot cover. For each product held orders need, a demand for its pick face
 * nearest the depot: what they need beyond what the faces have left.
 */
async function readPool(db: Executor, tenantId: string, layout: Layout, excluded: readonly string[] = []): Promise<PoolRead> {
  const { rows } = await sql<PoolLineRow>`
    SELECT pool.id, pool.external_id, pool.order_number, pool.priority, pool.priority_level, pool.due_date, i.position AS line, i.quantity,
      i.product_external_id, p.id AS product_id, own.aisle AS own_aisle, own.position AS own_position
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
  const [settings, slots] = await Promise.all([readSettings(db, tenantId), freeSlots(db, tenantId, products)]);
  const firstDay = firstDayNow(settings);
  const stock = new Map<string, SlotStock>();
  for (const [productId, of] of slots) {
    const faces = facesOf(of, firstDay);
    const reserve = settings.pickFromReserve ? reserveOf(of, firstDay) : [];
    stock.set(productId, { faces, reserve, facesLeft: units(faces), reserveLeft: units(reserve) });
  }

  // The lines of each order, orders in the pool's order.
  const linesOf = new Map<string, PoolLineRow[]>();
  for (const row of rows) (linesOf.get(row.id) ?? linesOf.set(row.id, []).get(row.id)!).push(row);

  const pool: PooledOrder[] = [];
  const held: HeldOrder[] = [];
  const levels: number[] = [];
  const heldNeeds = new Map<string, number>();
  for (const lines of linesOf.values()) {
    const [first] = lines as [PoolLineRow];
    const dueDate = first.due_date === null ? null : new Date(first.due_date);
    // What the order needs of each slotted product, and whether what is left covers it.
    const needs = new Map<string, { externalId: string; units: number }>();
    for (const line of lines) {
      if (line.product_id === null || !stock.has(line.product_id)) continue;
      const need = needs.get(line.product_id) ?? needs.set(line.product_id, { externalId: line.product_external_id, units: 0 }).get(line.product_id)!;
      need.units += line.quantity;
    }
    const short = [...needs].flatMap(([productId, need]) => {
      const { facesLeft, reserveLeft } = stock.get(productId)!;
      return need.units > facesLeft + reserveLeft ? [{ productId, productExternalId: need.externalId, needed: need.units, available: facesLeft + reserveLeft }] : [];
    });
    if (short.length > 0) {
      held.push({
        id: first.id,
        externalId: first.external_id,
        orderNumber: first.order_number,
        priority: first.priority,
        dueDate,
        short: short.map(({ productExternalId, needed, available }) => ({ productExternalId, needed, available })),
      });
      for (const { productId, needed } of short) heldNeeds.set(productId, (heldNeeds.get(productId) ?? 0) + needed);
      continue;
    }
    const order: PooledOrder = { id: first.id, externalId: first.external_id, orderNumber: first.order_number, priority: first.priority, dueDate, units: 0, places: [], urgency: 0, signature: '' };
    for (const line of lines) {
      order.units += line.quantity;
      const own = line.own_aisle !== null && line.own_position !== null ? { aisle: line.own_aisle, position: line.own_position } : null;
      const slotted = line.product_id === null ? undefined : stock.get(line.product_id);
      if (!slotted) {
        order.places.push(...placesOfLine(layout, line.quantity, [], own));
        continue;
      }
      // The faces first, then the reserve, for what is left of each; the places as the line would be planned.
      const fromFaces = Math.min(line.quantity, slotted.facesLeft);
      slotted.facesLeft -= fromFaces;
      slotted.reserveLeft -= line.quantity - fromFaces;
      if (fromFaces > 0) order.places.push(...placesOfLine(layout, fromFaces, slotted.faces, null));
      if (line.quantity > fromFaces) order.places.push(...placesOfLine(layout, line.quantity - fromFaces, slotted.reserve, null));
    }
    pool.push(order);
    levels.push(first.priority_level);
  }
  const ranks = urgencyRanks(pool.map((order, index) => ({ priorityLevel: levels[index]!, dueDate: order.dueDate })));
  pool.forEach((order, index) => {
    order.urgency = ranks[index]!;
    order.signature = JSON.stringify([levels[index], order.dueDate, order.units, order.places]);
  });

  const demands = [...heldNeeds].flatMap(([productId, needed]): Demand[] => {
    const { faces, facesLeft } = stock.get(productId)!;
    const face = [...faces].sort((a, b) => fromDepot(layout, a.place) - fromDepot(layout, b.place) || (a.place.code < b.place.code ? -1 : 1))[0];
    return face && needed > facesLeft ? [{ productId, face: face.place.code, units: needed - facesLeft }] : [];
  });
  return { pool, held, demands, full: linesOf.size === CANDIDATE_POOL };
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
 * planner's threads (its search stops at `deadline` with the best plan found). With them, the
 * orders held off the carts and the replenishments they ask for (readPool).
 */
export async function planPool(
  db: Executor,
  planner: Planner,
  tenantId: string,
  layout: Layout,
  limits: WaveLimits,
  excluded: readonly string[],
  deadline: number,
): Promise<{ pool: PooledOrder[]; plan: CurrentPlan; held: HeldOrder[]; demands: Demand[] }> {
  const { pool, held, demands, full } = await readPool(db, tenantId, layout, excluded);
  const key = JSON.stringify([tenantId, layout, limits.maxOrders, limits.maxItems]);
  const made = plansMade.get(key);
  const kept = made && planStillRight(layout, made, pool, limits);
  if (kept) return { pool, plan: kept, held, demands };
  const plan = await planner.run('planCarts', [layout, pool, limits], { deadline });
  plansMade.delete(key);
  plansMade.set(key, { plan, signatures: new Map(pool.map((order) => [order.id, order.signature])), full });
  if (plansMade.size > PLANS_KEPT) plansMade.delete(plansMade.keys().next().value!);
  return { pool, plan, held, demands };
}

/**
 * The plan as the supervisor reads it: every cart in the order they are handed out, each order
 * with its number, priority, due date and units, and the orders held off the carts for want of
 * units at their pick faces; 409 without a layout, as for making a wave.
 */
export async function loadCartPlan(db: Executor, planner: Planner, tenantId: string, limits: WaveLimits, deadline: number) {
  const layout = await requireLayout(db, tenantId);
  const { pool, plan, held } = await planPool(db, planner, tenantId, layout, limits, [], deadline);
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
    held: held.map(({ externalId, orderNumber, priority, dueDate, short }) => ({ externalId, orderNumber, priority, dueDate: dueDate?.toISOString() ?? null, short })),
  };
}
