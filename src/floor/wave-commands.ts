import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { LOCK_CLASS, lockInClass } from '../db/locks';
import type { DomainEvent } from '../events/types';
import { ApiError, concurrentUpdate, conflict, notFound, validationError, type FieldProblem } from '../http/errors';
import { moveOrders } from '../orders/lifecycle';
import { readSettings } from '../settings/store';
import type { OrderRow } from '../orders/store';
import { completePickedOrders, type OrderToComplete } from '../warehouse/order-picking';
import type { WaveLimits } from './plan/batching';
import type { Layout, Policy } from './plan/layout';
import { requireLayout } from './layout-store';
import { planPool } from './pool';
import type { WaveItem, WaveWalk } from './plan/wave-lines';
import type { Planner } from './planner/planner';
import { askForDemand, topUpFaces } from './replenishment';
import { pickedLotExpiry } from './picked-lot';
import { settleShortPick, slotShortfall, type PickedPart } from './short-picks';
import { freeSlots, productPlaces, slotKey, takeFromSlots } from './slots';
import { firstDayNow } from './plan/fefo';
import type { WaveStatus } from './tables';
import { pickerWaveId, waveLines } from './wave-reads';

export interface WaveRequest extends WaveLimits {
  orders?: string[] | undefined;
  policy: Policy;
  /** The console user the wave is assigned to. */
  pickerId?: string | undefined;
}

/** A cart's limits with the defaults docs/floor.md gives (Making a wave): 8 orders, 40 units. */
export function cartLimits(sent: { maxOrders?: number | undefined; maxItems?: number | undefined }): WaveLimits {
  return { maxOrders: sent.maxOrders ?? 8, maxItems: sent.maxItems ?? 40 };
}

/** A wave request with the defaults of `cartLimits` and the optimal route. */
export function waveRequest(body: { orders?: string[] | undefined; maxOrders?: number | undefined; maxItems?: number | undefined; policy?: Policy | undefined }): WaveRequest {
  return { orders: body.orders, ...cartLimits(body), policy: body.policy ?? 'optimal' };
}

/** A wave planned from an unlocked read: `makePlannedWave` makes it if what it was planned from still holds. */
export interface PlannedWave {
  request: WaveRequest;
  /** The orders' ids, in tote order. */
  orderIds: string[];
  /** The wave's number in its warehouse, taken when it was first planned (takeWaveNumber). */
  number: number;
  /** The layout the lines were planned on, and a fingerprint of the orders' items and their products' places, as read. */
  layout: Layout;
  basis: string;
  walk: WaveWalk;
  /** The units the walk takes at each slot (up to what was free there), which must still be free when the wave is made. */
  fromSlots: SlotTake[];
}

/** Units a wave takes at one slot of a product. */
interface SlotTake {
  productId: string;
  locationCode: string;
  /** The slot's lot, '' without one. */
  lot: string;
  quantity: number;
}

/**
 * Thrown inside a wave's transaction when the plan no longer holds: an order was taken (`taken`
 * lists those another wave locked or took) or its items, its products' places or the layout
 * changed. The transaction rolls back and the wave is planned again without the taken orders.
 */
export class PlanOvertaken extends Error {
  constructor(readonly taken: readonly string[] = []) {
    super('the wave was planned from rows that changed since');
  }
}

/**
 * Plans overtaken by changed rows one request accepts: overtaken that often, what it plans from
 * keeps changing under it. Plans overtaken by orders another wave took do not count: each leaves
 * those orders out of the next, so they end when the pool does.
 */
const CHANGES_PER_REQUEST = 3;

/** What a wave request is planned against: see planWave. */
export interface WaveContext {
  db: Executor;
  planner: Planner;
  tenantId: string;
  /** When the request must have its answer (Planner.deadline, taken as its handler starts). */
  deadline: number;
}

/**
 * Plans the wave `wanted` outside any transaction (planWave, worked out on the planner's threads)
 * and makes it in one (`make`, in the route's transaction), planning again, without the orders
 * taken meanwhile, while the plan is overtaken (PlanOvertaken); after CHANGES_PER_REQUEST plans
 * overtaken by changed rows, 409 CONCURRENT_UPDATE. No row is locked while a plan is worked out.
 * With `planFirst` false, `make` is first tried without a plan (a picker's start, which often
 * takes a wave that exists): it throws PlanOvertaken to ask for one.
 */
export async function withFreshPlan<R>(
  wanted: WaveRequest,
  context: WaveContext,
  make: (planned: PlannedWave | undefined) => Promise<R>,
  { planFirst = true }: { planFirst?: boolean } = {},
): Promise<R> {
  const excluded: string[] = [];
  const plan = (previous: PlannedWave | undefined) => planWave(wanted, { ...context, excluded, previous });
  let planned = planFirst ? await plan(undefined) : undefined;
  for (let changes = 0; ; ) {
    try {
      return await make(planned);
    } catch (error) {
      if (!(error instanceof PlanOvertaken)) throw error;
      if (planned && error.taken.length === 0 && ++changes >= CHANGES_PER_REQUEST) {
        throw concurrentUpdate('The orders kept changing while the wave was planned; retry the request');
      }
      excluded.push(...error.taken);
      planned = await plan(planned);
    }
  }
}

/** The work of a new wave made from `planned` (withFreshPlan plans first, so there is one): makePlannedWave, `created`. */
export function newWave(tenantId: string, planned: PlannedWave | undefined) {
  return async (tx: Tx) => ({ ...(await makePlannedWave(tx, tenantId, planned!)), created: true });
}

/** What a wave is planned with besides its request: see planWave. */
export interface WavePlanning extends WaveContext {
  /** Orders another wave took since an earlier plan of this request. */
  excluded: readonly string[];
  /** The request's earlier plan, overtaken: its wave number is kept. */
  previous?: PlannedWave | undefined;
}

/**
 * Plans a wave from an unlocked read: the named orders, or the first cart of the plan for the pool
 * of PENDING orders without issues but the `excluded` (planPool, which holds off the carts the
 * orders their pick faces cannot cover, and asks for their replenishment here), routed on the
 * layout, each product taken from its pick faces, net of what PICKING waves plan to take there,
 * then from its reserve with the warehouse's pickFromReserve (planWaveLines, on the planner's
 * threads, within the request's `deadline`), with the wave's number (the earlier plan's, else a new
 * one). Named orders are made as named: what their faces (and reserve) cannot cover is planned at
 * the product's own location, as for a product without slots.
 */
export async function planWave(request: WaveRequest, { db, planner, tenantId, excluded, deadline, previous }: WavePlanning): Promise<PlannedWave> {
  const layout = await requireLayout(db, tenantId);
  let orderIds: string[];
  if (request.orders) orderIds = checkedNamedOrders(request.orders, await namedOrders(db, tenantId, request.orders)).map((order) => order.id);
  else {
    const { plan, demands } = await planPool(db, planner, tenantId, layout, request, excluded, deadline);
    // Orders held off the carts for want of units at their faces ask for them at once, whether or not a wave is made.
    await askForDemand(db, tenantId, demands);
    const chosen = plan.carts[0]?.orders;
    if (!chosen) throw new ApiError('NOTHING_TO_PICK', 'No PENDING order without issues is free to pick');
    orderIds = chosen;
  }
  // Taken before what it stands for: a change in between makes the plan overtaken, never hides.
  const basis = await waveBasis(db, tenantId, orderIds);
  const items = await waveItems(db, tenantId, orderIds);
  const settings = await readSettings(db, tenantId);
  const places = await productPlaces(db, tenantId, [...new Set(items.map((item) => item.product_external_id))], firstDayNow(settings), settings.pickFromReserve);
  const tote = new Map(orderIds.map((id, index) => [id, index + 1]));
  const walk = await planner.run('planWaveLines', [layout, items, tote, places, request.policy], { deadline });
  // What the walk takes at each slot, up to what was free there: a line's part beyond it is short whatever happens.
  const fromSlots = new Map<string, SlotTake & { free: number }>();
  for (const line of walk.lines) {
    const product = places.get(line.product_external_id);
    const slot = product && [...product.slots, ...product.reserve].find((held) => held.place.code === line.location_code && (held.place.lot ?? '') === line.lot);
    if (!product?.slotted || !slot) continue;
    const key = slotKey(product.productId, slot.place.code, line.lot);
    const take = fromSlots.get(key) ?? fromSlots.set(key, { productId: product.productId, locationCode: slot.place.code, lot: line.lot, quantity: 0, free: slot.quantity }).get(key)!;
    take.quantity += line.quantity;
  }
  const taken = [...fromSlots.values()].map(({ productId, locationCode, lot, quantity, free }) => ({ productId, locationCode, lot, quantity: Math.min(quantity, free) }));
  return { request, orderIds, number: previous?.number ?? (await takeWaveNumber(db, tenantId)), layout, basis, walk, fromSlots: taken };
}

/**
 * Makes the planned wave: locks its orders (the named ones waiting for their locks; chosen ones
 * with SKIP LOCKED, so that two waves made at once never wait for each other), checks that the plan
 * still holds (PlanOvertaken otherwise), and records the wave; its orders go PENDING → IN_PICKING.
 * Returns the wave's id and the events to emit.
 */
export async function makePlannedWave(tx: Tx, tenantId: string, planned: PlannedWave, pickerId?: string): Promise<{ waveId: string; events: DomainEvent[] }> {
  const { request, orderIds, walk } = planned;
  const orders = request.orders ? checkedNamedOrders(request.orders, await namedOrders(tx, tenantId, request.orders, true)) : await lockChosenOrders(tx, tenantId, orderIds);
  if (orders.some((order, index) => order.id !== orderIds[index])) throw new PlanOvertaken();
  const layout = await requireLayout(tx, tenantId);
  if (JSON.stringify(layout) !== JSON.stringify(planned.layout) || (await waveBasis(tx, tenantId, orderIds)) !== planned.basis) throw new PlanOvertaken();
  if (!(await stillFree(tx, tenantId, planned.fromSlots))) throw new PlanOvertaken();
  const wave = await tx
    .insertInto('waves')
    .values({
      tenant_id: tenantId,
      number: planned.number,
      status: 'PICKING',
      policy: request.policy,
      distance: walk.distance,
      s_shape_distance: walk.sShapeDistance,
      picker_id: pickerId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('wave_orders')
    .values(orders.map((order, index) => ({ tenant_id: tenantId, wave_id: wave.id, order_id: order.id, tote: index + 1 })))
    .execute();
  // One statement for every line, however many (row values could run out of parameters).
  await sql`
    INSERT INTO wave_lines (tenant_id, wave_id, order_id, item_position, part, product_external_id, quantity, walk, stop, location_code, lot, expires_on, aisle, position)
    SELECT ${tenantId}, ${wave.id}, l.order_id, l.item_position, l.part, l.product_external_id, l.quantity, l.walk, l.stop, l.location_code, l.lot, l.expires_on, l.aisle, l.position
    FROM jsonb_to_recordset(${JSON.stringify(walk.lines)}::jsonb) AS l(order_id uuid, item_position integer, part integer, product_external_id text,
      quantity numeric, walk integer, stop integer, location_code text, lot text, expires_on date, aisle integer, position integer)`.execute(tx);

  const events = await moveOrders(tx, orders, 'IN_PICKING');
  return { waveId: wave.id, events };
}

/**
 * The picker's PICKING wave; else the oldest PICKING wave nobody is assigned to (a supervisor's),
 * now theirs; else the `planned` one, made for them by `makePlannedWave` (`created` tells), or
 * PlanOvertaken to ask for a plan when none is given (withFreshPlan). Two starts by one picker at
 * once run one after the other and get the same wave; two pickers starting at once never take
 * the same unassigned wave, nor the same orders.
 */
export async function startPickerWave(
  tx: Tx,
  tenantId: string,
  pickerId: string,
  planned: PlannedWave | undefined,
): Promise<{ waveId: string; created: boolean; events: DomainEvent[] }> {
  await lockInClass(tx, LOCK_CLASS.pickerWave, pickerId);
  const current = await pickerWaveId(tx, tenantId, pickerId);
  if (current) return { waveId: current, created: false, events: [] };
  const unassigned = await tx
    .selectFrom('waves')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'PICKING')
    .where('picker_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (unassigned) {
    await tx.updateTable('waves').set({ picker_id: pickerId, updated_at: sql<Date>`now()` }).where('tenant_id', '=', tenantId).where('id', '=', unassigned.id).execute();
    return { waveId: unassigned.id, created: false, events: [] };
  }
  if (!planned) throw new PlanOvertaken();
  return { ...(await makePlannedWave(tx, tenantId, planned, pickerId)), created: true };
}

/**
 * Gives a PICKING wave to a picker (a supervisor's lever): 404 for a user of the console who is not
 * an active picker or supervisor, 409 while they have another PICKING wave. The wave's previous
 * picker, if any, no longer has it.
 */
export async function assignWave(tx: Tx, tenantId: string, waveId: string, pickerId: string): Promise<{ waveId: string; events: [] }> {
  await lockInClass(tx, LOCK_CLASS.pickerWave, pickerId);
  await lockWave(tx, tenantId, waveId, 'update');
  const picker = await tx
    .selectFrom('staff_users')
    .select(['name'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', pickerId)
    .where('disabled_at', 'is', null)
    .where('role', 'in', ['picker', 'supervisor'])
    .executeTakeFirst();
  if (!picker) throw notFound(`Picker ${pickerId}`);
  const current = await pickerWaveId(tx, tenantId, pickerId);
  if (current && current !== waveId) throw conflict(`${picker.name} is picking another wave; it must be finished or released first`);
  await tx.updateTable('waves').set({ picker_id: pickerId, updated_at: sql<Date>`now()` }).where('tenant_id', '=', tenantId).where('id', '=', waveId).execute();
  return { waveId, events: [] };
}

/**
 * The chosen orders, locked with SKIP LOCKED, in the order given; PlanOvertaken naming those
 * another wave holds or took (or that gained issues) since the plan was made.
 */
async function lockChosenOrders(tx: Tx, tenantId: string, ids: readonly string[]): Promise<OrderRow[]> {
  const locked = await tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('status', '=', 'PENDING')
    .where('has_issues', '=', false)
    .orderBy('id')
    .forUpdate()
    .skipLocked()
    .execute();
  const byId = new Map(locked.map((order) => [order.id, order]));
  const taken = ids.filter((id) => !byId.has(id));
  if (taken.length > 0) throw new PlanOvertaken(taken);
  return ids.map((id) => byId.get(id)!);
}

/** The named orders as they stand (locked for the rest of the transaction with `lock`). */
async function namedOrders(db: Executor, tenantId: string, externalIds: string[], lock = false): Promise<OrderRow[]> {
  const query = db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('external_id', 'in', externalIds).orderBy('id');
  return lock ? query.forUpdate().execute() : query.execute();
}

/** The named orders in the order named: each must be named once (400), exist (404) and be PENDING without issues (409). */
function checkedNamedOrders(externalIds: string[], rows: OrderRow[]): OrderRow[] {
  const problems: FieldProblem[] = [];
  externalIds.forEach((externalId, index) => {
    const first = externalIds.indexOf(externalId);
    if (first !== index) problems.push({ field: `orders[${index}]`, message: `repeats orders[${first}]` });
  });
  if (problems.length > 0) throw validationError(problems);
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

/**
 * The tenant's next wave number, by a statement of its own: the counter's row is locked only while
 * it runs, not for the wave's transaction, so waves made at once never wait for each other.
 */
async function takeWaveNumber(db: Executor, tenantId: string): Promise<number> {
  const { rows } = await sql<{ last_number: number }>`
    INSERT INTO wave_numbers AS counter (tenant_id, last_number) VALUES (${tenantId}, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_number = counter.last_number + 1
    RETURNING last_number`.execute(db);
  return rows[0]!.last_number;
}

/**
 * A fingerprint of what a wave's lines are planned from (waveItems and productPlaces read): its
 * orders' items, their products' stock and own places, and their slots with their roles. What
 * other waves plan at those slots is not in it (every wave made meanwhile would overtake every plan
 * of a busy product): `stillFree` checks the units this wave takes instead. One row, however many
 * slots: under the orders' locks, the check reads as little as it can. Each item's product (by its
 * key: the ORDER BY names the primary key) and slots are read in subqueries of their own, so that
 * tables without statistics (a fresh database) are still read by their keys, never joined over
 * every product's slots.
 */
async function waveBasis(db: Executor, tenantId: string, orderIds: string[]): Promise<string> {
  const { rows } = await sql<{ basis: string }>`
    SELECT md5(coalesce(string_agg(concat_ws(':', i.order_id, i.position, i.product_external_id, i.quantity, p.places), ',' ORDER BY i.order_id, i.position), '')) AS basis
    FROM order_items i
    LEFT JOIN LATERAL (
      SELECT concat_ws(':', p.id, p.stock, own.code, own.aisle, own.position, (
        SELECT string_agg(concat_ws(':', s.location_code, s.quantity, s.role, l.aisle, l.position), ';' ORDER BY s.location_code)
        FROM product_slots s
        LEFT JOIN warehouse_locations l ON l.tenant_id = ${tenantId} AND l.code = s.location_code
        WHERE s.tenant_id = ${tenantId} AND s.product_id = p.id)) AS places
      FROM products p
      LEFT JOIN warehouse_locations own ON own.tenant_id = ${tenantId} AND own.code = p.location_code AND own.aisle IS NOT NULL
      WHERE p.tenant_id = ${tenantId} AND p.id = i.product_id
      ORDER BY p.tenant_id, p.id
      LIMIT 1
    ) AS p ON true
    WHERE i.tenant_id = ${tenantId} AND i.order_id = ANY (${orderIds}::uuid[])`.execute(db);
  return rows[0]!.basis;
}

/**
 * Whether the slots still hold, free of what the PICKING waves plan there, the units the wave takes.
 * Waves made in the same instant each see the other's lines only once committed: they may both
 * count on the same last units, and the later picker then finds the slot short.
 */
async function stillFree(tx: Tx, tenantId: string, fromSlots: readonly SlotTake[]): Promise<boolean> {
  if (fromSlots.length === 0) return true;
  const slots = await freeSlots(tx, tenantId, [...new Set(fromSlots.map((take) => take.productId))]);
  return fromSlots.every((take) => (slots.get(take.productId)?.find((slot) => slot.place.code === take.locationCode && (slot.place.lot ?? '') === take.lot)?.free ?? 0) >= take.quantity);
}

async function waveItems(db: Executor, tenantId: string, orderIds: string[]): Promise<WaveItem[]> {
  const rows = await db
    .selectFrom('order_items')
    .select(['order_id', 'position as item_position', 'product_external_id', 'quantity'])
    .where('tenant_id', '=', tenantId)
    .where('order_id', '=', sql<string>`ANY (${orderIds}::uuid[])`)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
  return rows.map((row) => ({ ...row, quantity: Number(row.quantity) }));
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
  /** Which part of a line planned at several stops: the location of its stop, and its lot when the line has parts of several lots there. */
  locationCode?: string | undefined;
  lot?: string | undefined;
  /** The lot the units were taken from, when not the part's: first expiry, first out must allow it (picked-lot.ts). */
  pickedLot?: string | undefined;
  reason?: string | undefined;
}

/**
 * Records (sets) the picked quantity of one part of a line: the one at `locationCode`, which a line
 * planned at several stops needs (400 naming it). At most what is planned there, less what parts
 * covering its short pick have picked since (400). With `shortNeedsReason` (the console), a part
 * picked short must say why. A short pick, or a new value at a part whose short pick was covered,
 * settles the slot and the missing units (short-picks.ts), under the product's row lock. A
 * `pickedLot` other than the part's lot makes the part name it when first expiry, first out allows
 * it (picked-lot.ts); a part without a lot ignores it.
 */
export async function recordPick(tx: Tx, tenantId: string, waveId: string, pick: Pick, options: { shortNeedsReason?: boolean } = {}): Promise<void> {
  await lockWave(tx, tenantId, waveId, 'share');
  const parts = await tx
    .selectFrom('wave_lines as l')
    .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'l.tenant_id').onRef('o.id', '=', 'l.order_id'))
    .innerJoin('order_items as i', (join) =>
      join.onRef('i.tenant_id', '=', 'l.tenant_id').onRef('i.order_id', '=', 'l.order_id').onRef('i.position', '=', 'l.item_position'),
    )
    .select(['l.order_id', 'l.item_position', 'l.part', 'l.covers_part', 'l.location_code', 'l.lot', 'l.quantity', 'l.picked_quantity', 'o.status', 'i.product_id'])
    .select(sql<string | null>`to_char(l.expires_on, 'YYYY-MM-DD')`.as('expires_on'))
    .where('l.tenant_id', '=', tenantId)
    .where('l.wave_id', '=', waveId)
    .where('o.external_id', '=', pick.orderExternalId)
    .where('l.product_external_id', '=', pick.productExternalId)
    .orderBy('l.part')
    .execute();
  if (parts.length === 0) throw notFound(`Line of order ${pick.orderExternalId} for product ${pick.productExternalId} in wave ${waveId}`);
  if (parts[0]!.status !== 'IN_PICKING') throw conflict(`Order ${pick.orderExternalId} is ${parts[0]!.status}; it left the wave when it was moved outside it`);
  const line = pickedPart(parts, pick.locationCode, pick.lot, pick.pickedLot);
  const planned = Number(line.quantity);
  if (pick.quantity > planned) {
    const most = parts.length > 1 ? `the ${planned} planned at ${line.location_code}` : `the ordered ${planned}`;
    throw validationError([{ field: 'quantity', message: `must be at most ${most}` }]);
  }
  const covers = parts.filter((part) => part.covers_part === line.part);
  const pickedElsewhere = covers.filter((part) => part.picked_quantity !== null);
  const coveredUnits = pickedElsewhere.reduce((sum, part) => sum + Number(part.quantity), 0);
  if (pick.quantity > planned - coveredUnits) {
    const where = pickedElsewhere.map((part) => part.location_code).join(', ');
    throw validationError([{ field: 'quantity', message: `must be at most ${planned - coveredUnits}: ${coveredUnits} of the ${planned} planned at ${line.location_code} were planned again at ${where} after its short pick, and picked there` }]);
  }
  if (options.shortNeedsReason && pick.quantity < planned && !pick.reason) {
    throw validationError([{ field: 'reason', message: `is required for a short pick (${pick.quantity} of ${planned})` }]);
  }
  const { product_id: productId, location_code: locationCode } = line;
  let taken: { lot: string; expires_on: string | null } | undefined;
  if (pick.pickedLot !== undefined && line.lot !== '' && pick.pickedLot !== line.lot && productId !== null && locationCode !== null) {
    await tx.selectFrom('products').select('id').where('tenant_id', '=', tenantId).where('id', '=', productId).forUpdate().execute();
    const siblingLots = parts.filter((other) => other !== line && other.location_code === locationCode).map((other) => other.lot);
    const lotPart = { productId, productExternalId: pick.productExternalId, locationCode, lot: line.lot, expiresOn: line.expires_on, siblingLots };
    taken = { lot: pick.pickedLot, expires_on: await pickedLotExpiry(tx, tenantId, lotPart, pick.pickedLot, pick.quantity) };
    line.lot = pick.pickedLot;
  }
  const previous = line.picked_quantity === null ? null : Number(line.picked_quantity);
  const part: PickedPart | undefined =
    line.product_id !== null && pick.quantity !== previous && (pick.quantity < planned || covers.length > 0)
      ? { orderId: line.order_id, itemPosition: line.item_position, part: line.part, productId: line.product_id, productExternalId: pick.productExternalId, locationCode: line.location_code, lot: line.lot, quantity: planned }
      : undefined;
  // A pick below the one recorded before lowers the slot: the books as it found them, before any lock.
  const lowers = part && pick.quantity < planned && (previous === null || pick.quantity < previous);
  const shortfall = part && lowers ? await slotShortfall(tx, tenantId, waveId, part, pick.quantity) : undefined;
  if (part) await tx.selectFrom('products').select('id').where('tenant_id', '=', tenantId).where('id', '=', part.productId).forUpdate().execute();
  await tx
    .updateTable('wave_lines')
    .set({ picked_quantity: pick.quantity, reason: pick.reason ?? null, picked_at: sql<Date>`now()`, ...taken })
    .where('tenant_id', '=', tenantId)
    .where('wave_id', '=', waveId)
    .where('order_id', '=', line.order_id)
    .where('item_position', '=', line.item_position)
    .where('part', '=', line.part)
    .execute();
  if (part) await settleShortPick(tx, tenantId, waveId, part, pick.quantity, shortfall);
}

/**
 * The part a pick records: the one at `locationCode` (of `lot`, when the line has parts of several
 * lots there: left out, the part without a lot), or the only one; 400 naming `locationCode` or
 * `lot` otherwise. A part that already
 * names `pickedLot` answers for `lot`: the pick is sent again after it was taken from that lot.
 */
function pickedPart<P extends { location_code: string | null; lot: string }>(parts: P[], locationCode: string | undefined, lot: string | undefined, pickedLot: string | undefined): P {
  const where = parts.map((part) => part.location_code ?? 'after the route').join(', ');
  const named = (part: P) => part.lot === lot || (pickedLot !== undefined && part.lot === pickedLot);
  if (locationCode === undefined) {
    if (parts.length === 1 && (lot === undefined || named(parts[0]!))) return parts[0]!;
    throw validationError([{ field: 'locationCode', message: `is required: the line is planned at ${where}` }]);
  }
  const there = parts.filter((candidate) => candidate.location_code === locationCode);
  if (there.length === 0) throw validationError([{ field: 'locationCode', message: `must be where the line is planned: ${where}` }]);
  if (lot === undefined && there.length === 1) return there[0]!;
  // Left out, `lot` means the part without a lot, as in slots and counts.
  const part = there.find((candidate) => candidate.lot === (lot ?? '')) ?? there.find(named);
  if (!part) throw validationError([{ field: 'lot', message: `must be a lot the line is planned in at ${locationCode}: ${there.map((candidate) => candidate.lot || 'without lot').join(', ')}` }]);
  return part;
}

/**
 * Completes the wave: its orders still IN_PICKING go to PICKED with the recorded quantities (the
 * sum of each line's parts), all at once, by the rules of complete-picking (completePickedOrders),
 * and the slots picked from drop by what was taken there, never below 0 (a pick face that falls to
 * its min asks for a top-up: topUpFaces); 409 PICKS_MISSING,
 * listing the parts, while one is unrecorded. Orders moved outside the wave since (complete-picking
 * on its own) are left as they are.
 */
export async function completeWave(tx: Tx, tenantId: string, waveId: string): Promise<DomainEvent[]> {
  await lockWave(tx, tenantId, waveId, 'update');
  const parts = (await waveLines(tx, tenantId, [waveId])).filter((line) => line.order_status === 'IN_PICKING');
  const missing = parts.filter((line) => line.picked_quantity === null);
  if (missing.length > 0) {
    const details = missing.map((line) => ({
      field: line.path,
      message: `order ${line.order_external_id}, product ${line.product_external_id}${line.location_code ? ` at ${line.location_code}` : ''}: no pick recorded`,
    }));
    throw new ApiError('PICKS_MISSING', `${missing.length} line(s) of the wave have no pick recorded`, details);
  }
  // Tote by tote, each order's items by position: the order of the events. A wave line is its
  // order's item (an IN_PICKING order's items do not change), picked in one or more parts.
  const byOrder = new Map<string, OrderToComplete>();
  for (const line of [...parts].sort((a, b) => a.tote - b.tote || a.item_position - b.item_position || a.part - b.part)) {
    const order: OrderToComplete = byOrder.get(line.order_id) ?? { id: line.order_id, externalId: line.order_external_id, items: [], picked: new Map() };
    byOrder.set(line.order_id, order);
    const { item_position: position, product_external_id, product_sku, ordered_quantity: quantity, product_id } = line;
    if (!order.picked.has(product_external_id)) order.items.push({ position, product_external_id, product_sku, quantity, product_id });
    order.picked.set(product_external_id, (order.picked.get(product_external_id) ?? 0) + line.picked_quantity!);
  }
  const { events } = await completePickedOrders(tx, tenantId, [...byOrder.values()]);
  // The product rows are locked (completePickedOrders): slot rows come after them.
  const picks = parts.flatMap((line) =>
    line.product_id && line.location_code && line.picked_quantity! > 0 ? [{ productId: line.product_id, locationCode: line.location_code, lot: line.lot, quantity: line.picked_quantity! }] : [],
  );
  await takeFromSlots(tx, tenantId, picks);
  // A face picked down to its min asks for a top-up.
  if (picks.length > 0) await topUpFaces(tx, tenantId, [...new Set(picks.map((pick) => pick.productId))]);
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
  const events = await moveOrders(tx, orders, 'PENDING');
  await setStatus(tx, tenantId, waveId, 'RELEASED');
  return events;
}

async function setStatus(tx: Tx, tenantId: string, waveId: string, status: WaveStatus): Promise<void> {
  await tx.updateTable('waves').set({ status, updated_at: sql<Date>`now()` }).where('tenant_id', '=', tenantId).where('id', '=', waveId).execute();
}
