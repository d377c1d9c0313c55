import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { LOCK_CLASS, lockInClass } from '../db/locks';
import { decodeCursor } from '../http/cursor';
import { ApiError, conflict, notFound } from '../http/errors';
import { keysetAfter, pageOf, type KeyColumn } from '../http/pagination';
import { UUID } from '../http/uuid';
import { readSettings } from '../settings/store';
import type { ReplenishmentReason, ReplenishmentStatus } from './kinds';
import { firstDayNow } from './plan/fefo';

/*
 * Replenishment: tasks that move units of one lot of a product (or units without a lot) from a
 * reserve slot to one of its pick faces.
 *
 * - The service makes them. MIN: a pick face with bounds that stands at its `min` or below, checked
 *   after a wave's completion lowers slots, after slots are written and after a task is completed,
 *   for `max` less what the face holds. DEMAND: orders of the pool of carts the faces cannot cover
 *   (pool.ts holds them off the carts), when a wave is made from the pool, for what those orders
 *   need beyond what the faces have free (raised to fill the face to `max` when it has one). SHORT:
 *   a pick face a short pick emptied (short-picks.ts), made and put first in line as DEMAND is.
 * - A face is a product at a location: it may hold several lots, each its own pick slot. What it
 *   holds is the sum over its lots, and its bounds are the highest `min` and `max` its slots carry
 *   (a lot a task brings gets a slot with the face's bounds, so its slots share them).
 * - A task is taken from the product's reserve slot whose lot expires first, first expiry first out
 *   (lots without a date and slots without a lot after every dated lot), leaving out the lots that
 *   expire before the first day a line may take (firstTakeableDay): a task never moves a lot a
 *   picker may not take. Ties: the fullest, so that one trip covers it as often as can be, then the
 *   lowest location code. A product without lots is taken from its fullest reserve slot. A task
 *   asks for no more than that slot holds, and names its lot; no task is made when no takeable
 *   reserve slot of the product holds a unit.
 * - At most one open task (OPEN or IN_PROGRESS) per pick face: a partial unique index holds it, and
 *   tasks are made with INSERT ... ON CONFLICT DO NOTHING, so that checks running at once make one.
 * - The line: tasks an order waits for (DEMAND, SHORT; urgency 0) before top-ups (MIN; urgency 1),
 *   each oldest first. A DEMAND for a face whose MIN task is open moves that task to the head of
 *   the line (it keeps its reason and quantity).
 * - Completing moves units from the reserve slot of the task's lot to the face's slot of that lot
 *   (made when the face holds none of it) in one transaction, under the product's row lock (the
 *   first lock of the documented order, orders/store.ts): the product's stock does not change; a
 *   reserve slot never goes below 0, and a lot that can no longer be taken is not moved (409).
 * - A console user takes a task in hand (IN_PROGRESS, taken_by): one task each, and nobody else
 *   completes or puts it back (a supervisor may put it back or cancel it). Their takes are
 *   serialized by an advisory lock per user, taken before any row lock; the warehouse API acts on
 *   any open task.
 */

const OPEN: ReplenishmentStatus[] = ['OPEN', 'IN_PROGRESS'];
/** Where the line puts a task of each reason: 0 first. */
const URGENCY: Record<ReplenishmentReason, number> = { DEMAND: 0, SHORT: 0, MIN: 1 };

/**
 * The pick faces (of the given products, when given) as `face`: each product at a location once,
 * with what its pick slots hold together (one per lot) and the highest `min` and `max` they carry.
 */
const faces = (tenantId: string, productIds?: readonly string[]) => sql`(
  SELECT product_id, location_code, sum(quantity) AS quantity, max(min) AS min, max(max) AS max FROM product_slots
  WHERE tenant_id = ${tenantId} AND role = 'pick' ${productIds ? sql`AND product_id = ANY (${productIds}::uuid[])` : sql``}
  GROUP BY product_id, location_code
) AS face`;

/**
 * The reserve slot a task for the product of `face` takes from, as `reserve`: of those holding a
 * unit whose lot expires on `firstDay` or later (or has no expiry), the one expiring first (undated
 * after dated), then the fullest, then the lowest location code (module comment).
 */
const firstReserve = (tenantId: string, firstDay: string) => sql`
  JOIN LATERAL (
    SELECT r.location_code, r.lot, r.expires_on, r.quantity FROM product_slots r
    WHERE r.tenant_id = ${tenantId} AND r.product_id = face.product_id AND r.role = 'reserve' AND r.quantity > 0
      AND (r.expires_on IS NULL OR r.expires_on >= ${firstDay}::date)
    ORDER BY r.expires_on NULLS LAST, r.quantity DESC, r.location_code, r.lot
    LIMIT 1
  ) AS reserve ON true`;

/** The first expiry date a task may move now: the one a line may take (firstDayNow). */
async function firstMovableDay(db: Executor, tenantId: string): Promise<string> {
  return firstDayNow(await readSettings(db, tenantId));
}

/**
 * Makes a MIN task for every pick face with bounds that stands at its `min` or below and has no open
 * task, for `max` less what it holds, from the reserve slot first expiry first out and no more than
 * it holds; of the given products only, when given. The caller holds the products' row locks or
 * writes their slots itself.
 */
export async function topUpFaces(tx: Tx, tenantId: string, productIds?: readonly string[]): Promise<void> {
  const firstDay = await firstMovableDay(tx, tenantId);
  await sql`
    INSERT INTO replenishments (tenant_id, product_id, from_location_code, to_location_code, lot, expires_on, quantity, reason, urgency)
    SELECT ${tenantId}, face.product_id, reserve.location_code, face.location_code, reserve.lot, reserve.expires_on,
      least(reserve.quantity, face.max - face.quantity), 'MIN', ${URGENCY.MIN}
    FROM ${faces(tenantId, productIds)}
    ${firstReserve(tenantId, firstDay)}
    WHERE face.min IS NOT NULL AND face.quantity <= face.min AND face.max > face.quantity
    ORDER BY face.product_id, face.location_code
    ON CONFLICT (tenant_id, product_id, to_location_code) WHERE status IN ('OPEN', 'IN_PROGRESS') DO NOTHING`.execute(tx);
}

/** A pick face at its `min` or below, and whether a task is open for it (none: its reserve is empty). */
export interface LowFace {
  productExternalId: string;
  sku: string;
  locationCode: string;
  quantity: number;
  min: number;
  max: number;
  replenishing: boolean;
}

/** The pick faces at their `min` or below, emptiest first (then by sku and location), at most `limit`; and how many there are. */
export async function facesAtMin(db: Executor, tenantId: string, limit: number): Promise<{ total: number; faces: LowFace[] }> {
  const { rows } = await sql<{ external_id: string; sku: string; location_code: string; quantity: string; min: number; max: number; replenishing: boolean; total: string }>`
    SELECT p.external_id, p.sku, face.location_code, face.quantity, face.min, face.max, count(*) OVER () AS total,
      EXISTS (SELECT FROM replenishments t WHERE t.tenant_id = ${tenantId} AND t.product_id = face.product_id AND t.to_location_code = face.location_code
        AND t.status IN ('OPEN', 'IN_PROGRESS')) AS replenishing
    FROM ${faces(tenantId)}
    JOIN products p ON p.tenant_id = ${tenantId} AND p.id = face.product_id
    WHERE face.min IS NOT NULL AND face.quantity <= face.min
    ORDER BY face.quantity, p.sku, face.location_code
    LIMIT ${limit}`.execute(db);
  return {
    total: Number(rows[0]?.total ?? 0),
    faces: rows.map((row) => ({
      productExternalId: row.external_id,
      sku: row.sku,
      locationCode: row.location_code,
      quantity: Number(row.quantity),
      min: row.min,
      max: row.max,
      replenishing: row.replenishing,
    })),
  };
}

/** Units of a product the pool's orders need at a pick face beyond what its faces have free. */
export interface Demand {
  productId: string;
  /** The pick face to fill. */
  face: string;
  units: number;
}

/**
 * Makes a task an order waits for (`reason` DEMAND, or SHORT for a face a short pick emptied) for
 * each demand whose face has no open task, first in line: for the units needed, or to fill the
 * face to its `max` when that is more, from the reserve slot first expiry first out and no more
 * than it holds. A face that has an open task moves it to the head of the line. One statement, so
 * that it is done whole or not at all outside a transaction too: the update sees the tasks as
 * they stood before the insert, and those it makes are first in line already.
 */
export async function askForDemand(db: Executor, tenantId: string, demands: readonly Demand[], reason: 'DEMAND' | 'SHORT' = 'DEMAND'): Promise<void> {
  if (demands.length === 0) return;
  const products = demands.map((demand) => demand.productId);
  const codes = demands.map((demand) => demand.face);
  const firstDay = await firstMovableDay(db, tenantId);
  await sql`
    WITH made AS (
      INSERT INTO replenishments (tenant_id, product_id, from_location_code, to_location_code, lot, expires_on, quantity, reason, urgency)
      SELECT ${tenantId}, face.product_id, reserve.location_code, face.location_code, reserve.lot, reserve.expires_on,
        least(reserve.quantity, greatest(d.units, coalesce(face.max - face.quantity, 0))), ${reason}, ${URGENCY[reason]}
      FROM unnest(${products}::uuid[], ${codes}::text[], ${demands.map((demand) => demand.units)}::numeric[]) AS d(product_id, face, units)
      JOIN ${faces(tenantId, products)} ON face.product_id = d.product_id AND face.location_code = d.face
      ${firstReserve(tenantId, firstDay)}
      ORDER BY face.product_id, face.location_code
      ON CONFLICT (tenant_id, product_id, to_location_code) WHERE status IN ('OPEN', 'IN_PROGRESS') DO NOTHING
    )
    UPDATE replenishments t SET urgency = ${URGENCY[reason]}
    FROM unnest(${products}::uuid[], ${codes}::text[]) AS d(product_id, face)
    WHERE t.tenant_id = ${tenantId} AND t.product_id = d.product_id AND t.to_location_code = d.face
      AND t.status IN ('OPEN', 'IN_PROGRESS') AND t.urgency <> ${URGENCY[reason]}`.execute(db);
}

/**
 * Cancels the open tasks (of the given products, when given) whose pick face or reserve slot (of
 * the task's lot) is no longer one: the slots were written since the task was made.
 */
export async function cancelStaleTasks(tx: Tx, tenantId: string, productIds?: readonly string[]): Promise<void> {
  await sql`
    UPDATE replenishments t SET status = 'CANCELLED', done_at = now(), done_by = NULL, taken_by = NULL
    WHERE t.tenant_id = ${tenantId} AND t.status IN ('OPEN', 'IN_PROGRESS') ${productIds ? sql`AND t.product_id = ANY (${productIds}::uuid[])` : sql``}
      AND (NOT EXISTS (SELECT FROM product_slots s WHERE s.tenant_id = ${tenantId} AND s.product_id = t.product_id AND s.location_code = t.to_location_code AND s.role = 'pick')
        OR NOT EXISTS (SELECT FROM product_slots s WHERE s.tenant_id = ${tenantId} AND s.product_id = t.product_id AND s.location_code = t.from_location_code AND s.lot = t.lot AND s.role = 'reserve'))`.execute(tx);
}

/** A task as the API answers it. */
export interface Replenishment {
  id: string;
  productExternalId: string;
  sku: string;
  fromLocationCode: string;
  toLocationCode: string;
  /** The lot it moves and that lot's expiry (null: none, or unknown). */
  lot: string | null;
  expiresOn: string | null;
  quantity: number;
  movedQuantity: number | null;
  reason: ReplenishmentReason;
  status: ReplenishmentStatus;
  createdAt: string;
  doneAt: string | null;
  doneBy: string | null;
}

function tasks(db: Executor, tenantId: string) {
  return db
    .selectFrom('replenishments as t')
    .innerJoin('products as p', (join) => join.onRef('p.tenant_id', '=', 't.tenant_id').onRef('p.id', '=', 't.product_id'))
    .select([
      't.id',
      't.urgency',
      'p.external_id',
      'p.sku',
      't.from_location_code',
      't.to_location_code',
      't.quantity',
      't.moved_quantity',
      't.reason',
      't.status',
      't.created_at',
      't.done_at',
      't.done_by',
      'p.name',
      'p.barcode',
      't.lot',
    ])
    .select(sql<string | null>`to_char(t.expires_on, 'YYYY-MM-DD')`.as('expires_on'))
    .where('t.tenant_id', '=', tenantId);
}

type TaskRow = Awaited<ReturnType<ReturnType<typeof tasks>['executeTakeFirstOrThrow']>>;

const view = (row: TaskRow): Replenishment => ({
  id: row.id,
  productExternalId: row.external_id,
  sku: row.sku,
  fromLocationCode: row.from_location_code,
  toLocationCode: row.to_location_code,
  lot: row.lot === '' ? null : row.lot,
  expiresOn: row.expires_on,
  quantity: Number(row.quantity),
  movedQuantity: row.moved_quantity === null ? null : Number(row.moved_quantity),
  reason: row.reason,
  status: row.status,
  createdAt: new Date(row.created_at).toISOString(),
  doneAt: row.done_at === null ? null : new Date(row.done_at).toISOString(),
  doneBy: row.done_by,
});

/** The task; 404 when the tenant has none of that id. */
export async function loadReplenishment(db: Executor, tenantId: string, id: string): Promise<Replenishment> {
  const row = await tasks(db, tenantId).where('t.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`Replenishment ${id}`);
  return view(row);
}

/** The open tasks (OPEN and IN_PROGRESS), first in line, at most `limit`; and how many there are. */
export async function openReplenishments(db: Executor, tenantId: string, limit: number): Promise<{ total: number; tasks: Replenishment[] }> {
  const [rows, counted] = await Promise.all([
    tasks(db, tenantId).where('t.status', 'in', OPEN).orderBy('t.urgency').orderBy('t.id').limit(limit).execute(),
    db.selectFrom('replenishments').where('tenant_id', '=', tenantId).where('status', 'in', OPEN).select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(counted.total), tasks: rows.map(view) };
}

/** A task as the replenishment screen shows it: with the product's name, and its barcode to scan a unit by. */
export type TripTask = Replenishment & { name: string; barcode: string | null };

/**
 * What a user's next trip is made of: the task they hold, then the OPEN tasks first in line, at
 * most `limit` in all; and how many OPEN tasks there are (tasks others hold are in neither).
 */
export async function tasksForTrip(db: Executor, tenantId: string, userId: string, limit: number): Promise<{ tasks: TripTask[]; open: number }> {
  const [rows, counted] = await Promise.all([
    tasks(db, tenantId)
      .where((eb) => eb.or([eb('t.status', '=', 'OPEN'), eb.and([eb('t.status', '=', 'IN_PROGRESS'), eb('t.taken_by', '=', userId)])]))
      .orderBy(sql`t.status = 'IN_PROGRESS'`, 'desc')
      .orderBy('t.urgency')
      .orderBy('t.id')
      .limit(limit)
      .execute(),
    db.selectFrom('replenishments').where('tenant_id', '=', tenantId).where('status', '=', 'OPEN').select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { tasks: rows.map((row) => ({ ...view(row), name: row.name, barcode: row.barcode })), open: Number(counted.total) };
}

/** The line: first in line first (urgency, then id, which is time-ordered). */
const IN_LINE: KeyColumn[] = [
  { name: 't.urgency', type: 'bigint' },
  { name: 't.id', type: 'uuid' },
];

/** A keyset page of the tenant's tasks (of one status, when given), first in line first. */
export async function listReplenishments(db: Executor, tenantId: string, query: { limit: number; cursor?: string | undefined; status?: ReplenishmentStatus | undefined }) {
  const filtered = tasks(db, tenantId).$if(query.status !== undefined, (q) => q.where('t.status', '=', query.status!));
  let page = filtered;
  if (query.cursor !== undefined) {
    const key = decodeCursor<[number, string]>(query.cursor, ['number', 'string'], ([urgency, id]) => Number.isInteger(urgency) && UUID.test(id));
    page = page.where(keysetAfter(IN_LINE, key));
  }
  const [fetched, counted] = await Promise.all([
    page.orderBy('t.urgency').orderBy('t.id').limit(query.limit + 1).execute(),
    db
      .selectFrom('replenishments')
      .where('tenant_id', '=', tenantId)
      .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  const { rows, hasMore, nextCursor } = pageOf(fetched, query.limit, (last) => [last.urgency, last.id]);
  return { tasks: rows.map(view), pagination: { limit: query.limit, hasMore, nextCursor, total: Number(counted.total) } };
}

/**
 * Who acts on a task from the console: the signed-in user. The warehouse API names nobody (its
 * admin token is the warehouse's own), so it may complete or cancel any open task.
 */
export interface Replenisher {
  id: string;
  username: string;
  /** A supervisor may put back or cancel a task someone else holds (one left in hand at a shift's end). */
  supervisor: boolean;
}

/**
 * The task locked for the rest of the transaction, after its product's row (the lock order of
 * orders/store.ts: product rows first); 404 when unknown, 409 naming its state unless it is open.
 */
async function lockOpenTask(tx: Tx, tenantId: string, id: string, doing: string) {
  const task = await tx.selectFrom('replenishments').select('product_id').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  if (!task) throw notFound(`Replenishment ${id}`);
  await tx.selectFrom('products').select('id').where('tenant_id', '=', tenantId).where('id', '=', task.product_id).forUpdate().execute();
  // A later statement than the lock: it reads what a transaction that held the lock committed.
  const locked = await tx.selectFrom('replenishments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
  if (!OPEN.includes(locked.status)) throw conflict(`Replenishment ${id} is ${locked.status}; only an OPEN or IN_PROGRESS task can be ${doing}`);
  return locked;
}

/**
 * 409 naming the state and its holder when `by` may not act on a task someone else holds: only
 * the holder may, and a supervisor too when `supervisorMay` (putting back, cancelling).
 */
function checkHolder(task: { id: string; status: ReplenishmentStatus; taken_by: string | null; done_by: string | null }, by: Replenisher | undefined, doing: string, supervisorMay = false) {
  if (!by || task.status !== 'IN_PROGRESS' || task.taken_by === by.id || (supervisorMay && by.supervisor)) return;
  throw conflict(`Replenishment ${task.id} is IN_PROGRESS, taken by ${task.done_by}; only they can ${doing} it${supervisorMay ? ', or a supervisor' : ''}`);
}

/**
 * Takes the task in hand: IN_PROGRESS, held by `by` (its `doneBy` names them). Taking the task one
 * holds already changes nothing. 409 when someone else holds it (naming them), when the task is
 * DONE or CANCELLED, or when `by` holds another task: one product is carried at a time. Two takes
 * by one user run one after the other (an advisory lock per user, before the product's row).
 */
export async function startReplenishment(tx: Tx, tenantId: string, id: string, by: Replenisher): Promise<{ id: string }> {
  await lockInClass(tx, LOCK_CLASS.replenisher, by.id);
  const task = await lockOpenTask(tx, tenantId, id, 'taken');
  if (task.taken_by === by.id) return { id };
  checkHolder(task, by, 'take');
  const other = await tx.selectFrom('replenishments').select('id').where('tenant_id', '=', tenantId).where('taken_by', '=', by.id).where('status', '=', 'IN_PROGRESS').executeTakeFirst();
  if (other) throw conflict(`You hold replenishment ${other.id} already; complete it or put it back first`);
  await tx.updateTable('replenishments').set({ status: 'IN_PROGRESS', taken_by: by.id, done_by: by.username }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  return { id };
}

/**
 * Puts the task back: OPEN again, held by nobody, for anyone to take. 409 unless it is IN_PROGRESS
 * and held by `by`, or `by` is a supervisor.
 */
export async function releaseReplenishment(tx: Tx, tenantId: string, id: string, by: Replenisher): Promise<{ id: string }> {
  const task = await lockOpenTask(tx, tenantId, id, 'put back');
  if (task.status !== 'IN_PROGRESS') throw conflict(`Replenishment ${id} is ${task.status}; only an IN_PROGRESS task can be put back`);
  checkHolder(task, by, 'put back', true);
  await tx.updateTable('replenishments').set({ status: 'OPEN', taken_by: null, done_by: null }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  return { id };
}

/**
 * Completes the task: `quantity` units of its lot move from its reserve slot to its pick face's
 * slot of that lot (made, with the face's bounds, when the face holds none of it), the task is DONE
 * with what moved, and the face is checked against its `min` again. The product's stock does not
 * change. 409 (nothing changed) when the task is not open, when someone other than `by` holds it,
 * when either slot is no longer what the task names, when the reserve slot holds fewer than
 * `quantity`, or when its lot now expires before the first day a line may take.
 * `doneBy` is `by`'s username (null without one: the warehouse API).
 */
export async function completeReplenishment(tx: Tx, tenantId: string, id: string, quantity: number, by?: Replenisher): Promise<{ id: string }> {
  const task = await lockOpenTask(tx, tenantId, id, 'completed');
  checkHolder(task, by, 'complete');
  const slots = await tx
    .selectFrom('product_slots')
    .select(['location_code', 'lot', 'role', 'quantity', 'min', 'max'])
    .select(sql<string | null>`to_char(expires_on, 'YYYY-MM-DD')`.as('expires_on'))
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', task.product_id)
    .where('location_code', 'in', [task.from_location_code, task.to_location_code])
    .execute();
  const reserve = slots.find((slot) => slot.location_code === task.from_location_code && slot.lot === task.lot && slot.role === 'reserve');
  const faceSlots = slots.filter((slot) => slot.location_code === task.to_location_code && slot.role === 'pick');
  const lotName = task.lot === '' ? '' : ` of lot ${task.lot}`;
  if (!reserve) throw conflict(`${task.from_location_code} is no longer a reserve slot${lotName} of the product; cancel the task`);
  if (faceSlots.length === 0 || slots.some((slot) => slot.location_code === task.to_location_code && slot.lot === task.lot && slot.role !== 'pick')) {
    throw conflict(`${task.to_location_code} is no longer a pick face of the product; cancel the task`);
  }
  const firstDay = await firstMovableDay(tx, tenantId);
  if (reserve.expires_on !== null && reserve.expires_on < firstDay) {
    throw conflict(`Lot ${task.lot} expires on ${reserve.expires_on}, before ${firstDay}, the first expiry a line may take: it is not moved to a face; cancel the task`);
  }
  if (Number(reserve.quantity) < quantity) {
    throw new ApiError('CONFLICT', `The reserve slot ${task.from_location_code} holds ${Number(reserve.quantity)} units; ${quantity} cannot be taken from it`, [
      { field: 'quantity', message: `must be at most ${Number(reserve.quantity)}, what the reserve slot ${task.from_location_code} holds` },
    ]);
  }
  const bound = (of: 'min' | 'max') => faceSlots.reduce<number | null>((high, slot) => (slot[of] === null ? high : Math.max(high ?? slot[of], slot[of])), null);
  await sql`
    WITH taken AS (
      UPDATE product_slots SET quantity = quantity - ${quantity}::numeric
      WHERE tenant_id = ${tenantId} AND product_id = ${task.product_id} AND location_code = ${task.from_location_code} AND lot = ${task.lot}
    )
    INSERT INTO product_slots (tenant_id, product_id, location_code, lot, expires_on, quantity, role, min, max)
    VALUES (${tenantId}, ${task.product_id}, ${task.to_location_code}, ${task.lot}, ${reserve.expires_on}::date, ${quantity}::numeric, 'pick', ${bound('min')}::integer, ${bound('max')}::integer)
    ON CONFLICT (tenant_id, product_id, location_code, lot) DO UPDATE SET quantity = product_slots.quantity + excluded.quantity`.execute(tx);
  await tx
    .updateTable('replenishments')
    .set({ status: 'DONE', moved_quantity: quantity, done_at: sql<Date>`now()`, done_by: by?.username ?? null, taken_by: null })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  await topUpFaces(tx, tenantId, [task.product_id]);
  return { id };
}

/**
 * Cancels the task (no slot changes); 409 naming its state unless it is open, or naming its holder
 * when someone other than `by` holds it and `by` is no supervisor.
 */
export async function cancelReplenishment(tx: Tx, tenantId: string, id: string, by?: Replenisher): Promise<{ id: string }> {
  const task = await lockOpenTask(tx, tenantId, id, 'cancelled');
  checkHolder(task, by, 'cancel', true);
  await tx
    .updateTable('replenishments')
    .set({ status: 'CANCELLED', done_at: sql<Date>`now()`, done_by: by?.username ?? null, taken_by: null })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  return { id };
}
