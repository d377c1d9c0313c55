import { sql } from 'kysely';
import type { Tx } from '../db';
import { LOCK_CLASS, lockInClass } from '../db/locks';
import type { DomainEvent } from '../events/types';
import { ApiError, conflict, notFound, validationError, type FieldProblem } from '../http/errors';
import { moveOrder } from '../orders/lifecycle';
import type { OrderRow } from '../orders/store';
import { completePickedOrders, type OrderToComplete } from '../warehouse/order-picking';
import { chooseWave, type WaveCandidate } from './plan/batching';
import type { Layout, Policy } from './plan/layout';
import { requireLayout } from './layout-store';
import { routePicks } from './plan/walks';
import type { WaveStatus } from './tables';
import { pickerWaveId, waveLines } from './wave-reads';

export interface WaveRequest {
  orders?: string[] | undefined;
  maxOrders: number;
  maxItems: number;
  policy: Policy;
  /** The console user the wave is assigned to. */
  pickerId?: string | undefined;
}

/** A wave request with the defaults docs/floor.md gives (Making a wave): 8 orders, 40 units, the optimal route. */
export function waveRequest(body: { orders?: string[] | undefined; maxOrders?: number | undefined; maxItems?: number | undefined; policy?: Policy | undefined }): WaveRequest {
  return { orders: body.orders, maxOrders: body.maxOrders ?? 8, maxItems: body.maxItems ?? 40, policy: body.policy ?? 'optimal' };
}

/** How many of the most urgent PENDING orders a new wave chooses from. */
const CANDIDATE_POOL = 500;

/** An item of an order, where its product is picked (null when it has no placed location). */
interface ItemPlace {
  order_id: string;
  item_position: number;
  product_external_id: string;
  quantity: number;
  location_code: string | null;
  aisle: number | null;
  position: number | null;
}

/**
 * Makes a wave: the named orders, or orders chosen from the most urgent PENDING ones without
 * issues, routed on the layout. Its orders go PENDING → IN_PICKING. Returns the wave's id and the
 * events to emit.
 */
export async function createWave(tx: Tx, tenantId: string, request: WaveRequest): Promise<{ waveId: string; events: DomainEvent[] }> {
  const layout = await requireLayout(tx, tenantId);
  const orders = request.orders ? await lockNamedOrders(tx, tenantId, request.orders) : await chooseOrders(tx, tenantId, layout, request);
  const items = await itemPlaces(tx, tenantId, orders.map((order) => order.id));

  const tote = new Map(orders.map((order, index) => [order.id, index + 1]));
  const walk = walkingOrder(layout, items, tote, request.policy);
  const wave = await tx
    .insertInto('waves')
    .values({
      tenant_id: tenantId,
      status: 'PICKING',
      policy: request.policy,
      distance: walk.distance,
      s_shape_distance: walk.sShapeDistance,
      picker_id: request.pickerId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('wave_orders')
    .values(orders.map((order) => ({ tenant_id: tenantId, wave_id: wave.id, order_id: order.id, tote: tote.get(order.id)! })))
    .execute();
  // One statement for every line, however many (row values could run out of parameters).
  await sql`
    INSERT INTO wave_lines (tenant_id, wave_id, order_id, item_position, product_external_id, quantity, walk, stop, location_code, aisle, position)
    SELECT ${tenantId}, ${wave.id}, l.order_id, l.item_position, l.product_external_id, l.quantity, l.walk, l.stop, l.location_code, l.aisle, l.position
    FROM jsonb_to_recordset(${JSON.stringify(walk.lines)}::jsonb) AS l(order_id uuid, item_position integer, product_external_id text,
      quantity numeric, walk integer, stop integer, location_code text, aisle integer, position integer)`.execute(tx);

  const events: DomainEvent[] = [];
  for (const order of orders) events.push((await moveOrder(tx, order, 'IN_PICKING')).event);
  return { waveId: wave.id, events };
}

/**
 * The picker's PICKING wave, or a new one made for them as `createWave` makes it (`created` tells
 * which). Two starts by one picker at once run one after the other and get the same wave.
 */
export async function startPickerWave(
  tx: Tx,
  tenantId: string,
  pickerId: string,
  request: WaveRequest,
): Promise<{ waveId: string; created: boolean; events: DomainEvent[] }> {
  await lockInClass(tx, LOCK_CLASS.pickerWave, pickerId);
  const current = await pickerWaveId(tx, tenantId, pickerId);
  if (current) return { waveId: current, created: false, events: [] };
  return { ...(await createWave(tx, tenantId, { ...request, pickerId })), created: true };
}

/**
 * Chooses the orders of a wave from the most urgent PENDING orders without issues, and locks them.
 * The pool is read without locks; only the chosen orders are locked, with SKIP LOCKED: an order
 * another wave holds (or took meanwhile) is left out and the choice made again without it. Two
 * waves made at once thus get different orders, and neither waits for the other.
 */
async function chooseOrders(tx: Tx, tenantId: string, layout: Layout, request: WaveRequest): Promise<OrderRow[]> {
  const taken: string[] = [];
  for (;;) {
    // The pool and where its lines are, in one statement, most urgent first.
    const { rows } = await sql<ItemPlace>`
      SELECT pool.id AS order_id, i.position AS item_position, i.product_external_id, i.quantity, l.code AS location_code, l.aisle, l.position
      FROM (
        SELECT id, order_urgency(priority) AS urgency, due_date, created_at FROM orders
        WHERE tenant_id = ${tenantId} AND status = 'PENDING' AND NOT has_issues ${taken.length > 0 ? sql`AND id <> ALL (${taken}::uuid[])` : sql``}
        ORDER BY order_urgency(priority), due_date, created_at, id
        LIMIT ${CANDIDATE_POOL}
      ) AS pool
      JOIN order_items i ON i.tenant_id = ${tenantId} AND i.order_id = pool.id
      LEFT JOIN products p ON p.tenant_id = i.tenant_id AND p.id = i.product_id
      LEFT JOIN warehouse_locations l ON l.tenant_id = i.tenant_id AND l.code = p.location_code AND l.aisle IS NOT NULL
      ORDER BY pool.urgency, pool.due_date, pool.created_at, pool.id, i.position`.execute(tx);
    if (rows.length === 0) throw new ApiError('NOTHING_TO_PICK', 'No PENDING order without issues is free to pick');
    const candidates = new Map<string, WaveCandidate>();
    for (const { order_id: id, quantity, aisle, position } of rows) {
      const candidate = candidates.get(id) ?? { id, units: 0, places: [] };
      candidates.set(id, candidate);
      candidate.units += quantity;
      if (aisle !== null && position !== null) candidate.places.push({ aisle, position });
    }
    const chosen = chooseWave(layout, [...candidates.values()], { maxOrders: request.maxOrders, maxItems: request.maxItems });
    if (chosen.length === 0) throw new ApiError('NOTHING_TO_PICK', 'No PENDING order without issues is free to pick');
    const locked = await tx
      .selectFrom('orders')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', chosen)
      .where('status', '=', 'PENDING')
      .where('has_issues', '=', false)
      .orderBy('id')
      .forUpdate()
      .skipLocked()
      .execute();
    const byId = new Map(locked.map((order) => [order.id, order]));
    if (locked.length === chosen.length) return chosen.map((id) => byId.get(id)!);
    taken.push(...chosen.filter((id) => !byId.has(id)));
  }
}

/** The named orders, locked, in the order named: each must exist (404) and be PENDING without issues (409). */
async function lockNamedOrders(tx: Tx, tenantId: string, externalIds: string[]): Promise<OrderRow[]> {
  const problems: FieldProblem[] = [];
  externalIds.forEach((externalId, index) => {
    const first = externalIds.indexOf(externalId);
    if (first !== index) problems.push({ field: `orders[${index}]`, message: `repeats orders[${first}]` });
  });
  if (problems.length > 0) throw validationError(problems);
  const rows = await tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('external_id', 'in', externalIds)
    .orderBy('id')
    .forUpdate()
    .execute();
  const byExternalId = new Map(rows.map((row) => [row.external_id, row]));
  return externalIds.map((externalId) => {
    const order = byExternalId.get(externalId);
    if (!order) throw notFound(`Order ${externalId}`);
    if (order.status !== 'PENDING' || order.has_issues) {
      const state = order.has_issues ? `${order.status} with issues` : order.status;
      throw conflict(`Order ${externalId} is ${state}; only a PENDING order without issues can join a wave`);
    }
    return order;
  });
}

async function itemPlaces(tx: Tx, tenantId: string, orderIds: string[]): Promise<ItemPlace[]> {
  return tx
    .selectFrom('order_items as i')
    .leftJoin('products as p', (join) => join.onRef('p.tenant_id', '=', 'i.tenant_id').onRef('p.id', '=', 'i.product_id'))
    .leftJoin('warehouse_locations as l', (join) =>
      join.onRef('l.tenant_id', '=', 'i.tenant_id').onRef('l.code', '=', 'p.location_code').on('l.aisle', 'is not', null),
    )
    .select(['i.order_id', 'i.position as item_position', 'i.product_external_id', 'i.quantity', 'l.code as location_code', 'l.aisle', 'l.position'])
    .where('i.tenant_id', '=', tenantId)
    .where('i.order_id', '=', sql<string>`ANY (${orderIds}::uuid[])`)
    .orderBy('i.order_id')
    .orderBy('i.position')
    .execute();
}

/**
 * The wave's lines in walking order: the placed ones along the route (the lines at one location
 * together, by tote), numbered by stop, then the unplaced ones by tote.
 */
function walkingOrder(layout: Layout, items: ItemPlace[], tote: Map<string, number>, policy: Policy) {
  const byTote = (a: ItemPlace, b: ItemPlace) => tote.get(a.order_id)! - tote.get(b.order_id)! || a.item_position - b.item_position;
  const picks = items
    .flatMap((item) => (item.aisle !== null && item.position !== null ? [{ ...item, aisle: item.aisle, position: item.position }] : []))
    .sort((a, b) => (a.location_code! < b.location_code! ? -1 : a.location_code! > b.location_code! ? 1 : byTote(a, b)));
  const route = routePicks(layout, picks, policy);
  const sShapeDistance = policy === 's-shape' ? route.distance : routePicks(layout, picks, 's-shape').distance;
  const unplaced = items.filter((item) => item.aisle === null || item.position === null).sort(byTote);
  let stop = 0;
  const lines = [
    ...route.stops.map((pick, index) => {
      if (index === 0 || route.stops[index - 1]!.location_code !== pick.location_code) stop++;
      return { ...pick, stop };
    }),
    ...unplaced.map((item) => ({ ...item, stop: null })),
  ].map((line, walk) => ({ ...line, walk }));
  return { distance: route.distance, sShapeDistance, lines };
}

/** The wave locked for the rest of the transaction (shared by picks, exclusive otherwise); 404 when unknown. */
async function lockWave(tx: Tx, tenantId: string, waveId: string, mode: 'share' | 'update') {
  const query = tx.selectFrom('waves').select(['id', 'status']).where('tenant_id', '=', tenantId).where('id', '=', waveId);
  const wave = await (mode === 'share' ? query.forShare() : query.forUpdate()).executeTakeFirst();
  if (!wave) throw notFound(`Wave ${waveId}`);
  if (wave.status !== 'PICKING') throw conflict(`Wave ${waveId} is ${wave.status}; only a PICKING wave can change`);
  return wave;
}

export interface Pick {
  orderExternalId: string;
  productExternalId: string;
  quantity: number;
  reason?: string | undefined;
}

/**
 * Records (sets) the picked quantity of one line. With `shortNeedsReason` (the console), a line
 * picked short must say why.
 */
export async function recordPick(tx: Tx, tenantId: string, waveId: string, pick: Pick, options: { shortNeedsReason?: boolean } = {}): Promise<void> {
  await lockWave(tx, tenantId, waveId, 'share');
  const line = await tx
    .selectFrom('wave_lines as l')
    .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'l.tenant_id').onRef('o.id', '=', 'l.order_id'))
    .select(['l.order_id', 'l.item_position', 'l.quantity', 'o.status'])
    .where('l.tenant_id', '=', tenantId)
    .where('l.wave_id', '=', waveId)
    .where('o.external_id', '=', pick.orderExternalId)
    .where('l.product_external_id', '=', pick.productExternalId)
    .executeTakeFirst();
  if (!line) throw notFound(`Line of order ${pick.orderExternalId} for product ${pick.productExternalId} in wave ${waveId}`);
  if (line.status !== 'IN_PICKING') throw conflict(`Order ${pick.orderExternalId} is ${line.status}; it left the wave when it was moved outside it`);
  if (pick.quantity > Number(line.quantity)) throw validationError([{ field: 'quantity', message: `must be at most the ordered ${Number(line.quantity)}` }]);
  if (options.shortNeedsReason && pick.quantity < Number(line.quantity) && !pick.reason) {
    throw validationError([{ field: 'reason', message: `is required for a short pick (${pick.quantity} of ${Number(line.quantity)})` }]);
  }
  await tx
    .updateTable('wave_lines')
    .set({ picked_quantity: pick.quantity, reason: pick.reason ?? null, picked_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('wave_id', '=', waveId)
    .where('order_id', '=', line.order_id)
    .where('item_position', '=', line.item_position)
    .execute();
}

/**
 * Completes the wave: its orders still IN_PICKING go to PICKED with the recorded quantities, all
 * at once, by the rules of complete-picking (completePickedOrders); 409 PICKS_MISSING, listing the
 * lines, while one is unrecorded. Orders moved outside the wave since (complete-picking on its
 * own) are left as they are.
 */
export async function completeWave(tx: Tx, tenantId: string, waveId: string): Promise<DomainEvent[]> {
  await lockWave(tx, tenantId, waveId, 'update');
  const lines = (await waveLines(tx, tenantId, [waveId])).filter((line) => line.order_status === 'IN_PICKING');
  const missing = lines.filter((line) => line.picked_quantity === null);
  if (missing.length > 0) {
    const details = missing.map((line) => ({
      field: line.path,
      message: `order ${line.order_external_id}, product ${line.product_external_id}: no pick recorded`,
    }));
    throw new ApiError('PICKS_MISSING', `${missing.length} line(s) of the wave have no pick recorded`, details);
  }
  // Tote by tote, each order's items by position: the order of the events. A wave line is its
  // order's item (an IN_PICKING order's items do not change).
  const byOrder = new Map<string, OrderToComplete>();
  for (const line of [...lines].sort((a, b) => a.tote - b.tote || a.item_position - b.item_position)) {
    const order: OrderToComplete = byOrder.get(line.order_id) ?? { id: line.order_id, externalId: line.order_external_id, items: [], picked: new Map() };
    byOrder.set(line.order_id, order);
    const { item_position: position, product_external_id, product_sku, quantity, product_id } = line;
    order.items.push({ position, product_external_id, product_sku, quantity, product_id });
    order.picked.set(line.product_external_id, line.picked_quantity!);
  }
  const { events } = await completePickedOrders(tx, tenantId, [...byOrder.values()]);
  await setStatus(tx, tenantId, waveId, 'COMPLETED');
  return events;
}

/** Releases the wave: its orders not picked yet go back to PENDING; recorded picks are not applied. */
export async function releaseWave(tx: Tx, tenantId: string, waveId: string): Promise<DomainEvent[]> {
  await lockWave(tx, tenantId, waveId, 'update');
  const orders = await tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', tx.selectFrom('wave_orders').select('order_id').where('tenant_id', '=', tenantId).where('wave_id', '=', waveId))
    .where('status', '=', 'IN_PICKING')
    .orderBy('id')
    .forUpdate()
    .execute();
  const events: DomainEvent[] = [];
  for (const order of orders) events.push((await moveOrder(tx, order, 'PENDING')).event);
  await setStatus(tx, tenantId, waveId, 'RELEASED');
  return events;
}

async function setStatus(tx: Tx, tenantId: string, waveId: string, status: WaveStatus): Promise<void> {
  await tx.updateTable('waves').set({ status, updated_at: sql<Date>`now()` }).where('tenant_id', '=', tenantId).where('id', '=', waveId).execute();
}
