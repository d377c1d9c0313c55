import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { notFound } from '../http/errors';
import { checkedPeriod, lastDays } from '../http/period';
import { requireLayout } from './layout-store';
import { placesOfLine } from './plan/line-places';
import { EVERY_LOT } from './plan/fefo';
import type { Place } from './plan/layout';
import type { WaveLimits } from './plan/batching';
import { slottingSteps, type SlottingOrder, type SlottingProblem } from './plan/slotting';
import type { Planner } from './planner/planner';
import { productPlaces } from './slots';

/*
 * Slotting proposals (docs/floor.md, Slotting): the orders of the period's completed waves, in the
 * order they were picked, planned into carts again for each placement and walked with exact
 * routes, over today's places and over the places the proposal gives the busiest products. A
 * product moves when it stands at one placed location of its own (no slots); a product kept at
 * slots stays, and is walked to its slots nearest the depot that hold the line, as the plan of
 * carts does. Applying moves the products' locations in one transaction and emits no event: where
 * a product stands is the warehouse's business.
 */

/** The period read when none is sent: the last 30 days. */
const DEFAULT_PERIOD_DAYS = 30;
/** The longest period a proposal replays. */
const MAX_PERIOD_DAYS = 366;
/** Moves proposed at most when `maxMoves` is left out. */
export const DEFAULT_MAX_MOVES = 1_000;

/** A move as stored: the product as it was when proposed, so that applying can tell a change since. */
export interface StoredMove {
  productId: string;
  productExternalId: string;
  sku: string;
  name: string;
  from: string;
  to: string;
  picks: number;
  productUpdatedAt: string;
}

export interface AppliedMoves {
  moved: number;
  skipped: { productExternalId: string; reason: string }[];
}

/** What a proposal replayed: the period's orders, and the carts they were planned into for each placement. */
export interface ReplayBasis {
  orders: number;
  maxOrders: number;
  maxItems: number;
}

export interface ProposalRequest {
  period?: { from: string; to: string } | undefined;
  maxMoves?: number | undefined;
}

/**
 * The carts the period's orders are planned into: as many orders as the period's waves had (the
 * median wave), and as many units as its fullest wave carried.
 */
function periodCarts(waves: readonly { orders: number; units: number }[]): WaveLimits {
  const orders = waves.map((wave) => wave.orders).sort((a, b) => a - b);
  return {
    maxOrders: Math.max(1, orders[Math.floor(orders.length / 2)] ?? 1),
    maxItems: Math.max(1, ...waves.map((wave) => Math.ceil(wave.units))),
  };
}

/**
 * Works out a proposal for the tenant's floor from the orders of the waves completed in the
 * period: reads only, so that the replay (seconds for a busy month) holds no lock. The replay runs
 * on the planner's threads one pool of orders at a time (`slottingSteps`): a proposal holds one
 * thread for tens of milliseconds at a time, and routes and plans queued meanwhile run in between.
 * `storeProposal` then keeps it.
 */
export async function workOutProposal(db: Executor, planner: Planner, tenantId: string, request: ProposalRequest) {
  const period = request.period ? checkedPeriod(request.period, MAX_PERIOD_DAYS, 'period.') : lastDays(DEFAULT_PERIOD_DAYS);
  const layout = await requireLayout(db, tenantId);
  // Each order's lines as picked in one wave, in the order the waves were made.
  const lines = await sql<{ wave_id: string; order_id: string; product_external_id: string; quantity: string }>`
    SELECT l.wave_id, l.order_id, l.product_external_id, sum(l.quantity) AS quantity
    FROM waves w
    JOIN wave_lines l ON l.tenant_id = ${tenantId} AND l.wave_id = w.id
    WHERE w.tenant_id = ${tenantId} AND w.status = 'COMPLETED' AND w.created_at >= ${period.from} AND w.created_at < ${period.to}
    GROUP BY w.created_at, l.wave_id, l.order_id, l.product_external_id
    ORDER BY w.created_at, l.wave_id, l.order_id, l.product_external_id`.execute(db);
  const catalog = await sql<{ id: string; external_id: string; sku: string; name: string; location_code: string; updated_at: Date; aisle: number; position: number }>`
    SELECT p.id, p.external_id, p.sku, p.name, p.location_code, p.updated_at, own.aisle, own.position
    FROM products p
    JOIN warehouse_locations own ON own.tenant_id = ${tenantId} AND own.code = p.location_code AND own.aisle IS NOT NULL
    WHERE p.tenant_id = ${tenantId} AND NOT EXISTS (SELECT 1 FROM product_slots s WHERE s.tenant_id = ${tenantId} AND s.product_id = p.id)
    ORDER BY p.external_id`.execute(db);
  // Each location code one place (a place may hold several codes); movable products by externalId.
  const codes: string[] = [];
  const places: Place[] = [];
  const placeOf = new Map<string, number>();
  const movable = new Map<string, number>();
  for (const product of catalog.rows) {
    if (!placeOf.has(product.location_code)) {
      placeOf.set(product.location_code, places.length);
      codes.push(product.location_code);
      places.push({ aisle: product.aisle, position: product.position });
    }
    movable.set(product.external_id, movable.size);
  }
  const slotted = await productPlaces(db, tenantId, [...new Set(lines.rows.map((line) => line.product_external_id).filter((id) => !movable.has(id)))], EVERY_LOT);
  const orders = new Map<string, SlottingOrder & { fixed: Place[]; products: number[] }>();
  const waves = new Map<string, { orders: number; units: number }>();
  for (const line of lines.rows) {
    const key = `${line.wave_id} ${line.order_id}`;
    let order = orders.get(key);
    if (!order) {
      orders.set(key, (order = { units: 0, fixed: [], products: [] }));
      const wave = waves.get(line.wave_id) ?? waves.set(line.wave_id, { orders: 0, units: 0 }).get(line.wave_id)!;
      wave.orders += 1;
    }
    const quantity = Number(line.quantity);
    order.units += quantity;
    waves.get(line.wave_id)!.units += quantity;
    const product = movable.get(line.product_external_id);
    if (product !== undefined) order.products.push(product);
    else {
      const stands = slotted.get(line.product_external_id);
      if (stands) order.fixed.push(...placesOfLine(layout, quantity, stands.slots, stands.own));
    }
  }
  const cart = periodCarts([...waves.values()]);
  const problem: SlottingProblem = {
    layout,
    places,
    products: catalog.rows.map((product) => ({ id: product.id, at: placeOf.get(product.location_code)! })),
    orders: [...orders.values()],
    cart,
    maxMoves: request.maxMoves ?? DEFAULT_MAX_MOVES,
  };
  // One pool at a time: each step is bounded work (no deadline), and work queued meanwhile runs between steps.
  const steps = slottingSteps(problem);
  let next = steps.next();
  while (!next.done) {
    const { layout: on, orders: pool, limits } = next.value;
    next = steps.next(await planner.run('walkPlannedCarts', [on, pool, limits], { deadline: Infinity }));
  }
  const proposal = next.value;
  const moves: StoredMove[] = proposal.moves.map(({ product, from, to, picks }) => {
    const row = catalog.rows[product]!;
    return { productId: row.id, productExternalId: row.external_id, sku: row.sku, name: row.name, from: codes[from]!, to: codes[to]!, picks, productUpdatedAt: new Date(row.updated_at).toISOString() };
  });
  const basis: ReplayBasis = { orders: problem.orders.length, ...cart };
  return { period, waves: waves.size, basis, moves, walkingBefore: proposal.walkingBefore, walkingAfter: proposal.walkingAfter, savingByMoves: proposal.savingByMoves };
}

/** Keeps a proposal worked out by `workOutProposal`; its id. */
export async function storeProposal(tx: Tx, tenantId: string, proposal: Awaited<ReturnType<typeof workOutProposal>>): Promise<{ id: string }> {
  return tx
    .insertInto('slotting_proposals')
    .values({
      tenant_id: tenantId,
      period_from: proposal.period.from,
      period_to: proposal.period.to,
      waves: proposal.waves,
      basis: JSON.stringify(proposal.basis),
      moves: JSON.stringify(proposal.moves),
      walking_before: proposal.walkingBefore,
      walking_after: proposal.walkingAfter,
      saving_by_moves: JSON.stringify(proposal.savingByMoves),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** The share of `before` saved, in percent with two decimals. */
function savingPercent(before: number, after: number): number {
  return before > 0 ? Math.round((10_000 * (before - after)) / before) / 100 : 0;
}

/** What a basis says in words, for the answer. */
function basisSummary({ orders, maxOrders, maxItems }: ReplayBasis): string {
  const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;
  return (
    `The period's ${count(orders, 'order')}, in the order they were picked, planned into carts of at most ${count(maxOrders, 'order')} and ${count(maxItems, 'unit')} ` +
    `again for each placement, each cart walked by its exact route`
  );
}

/** A proposal as the API answers it; 404 when the tenant has none by that id. */
export async function readProposal(db: Executor, tenantId: string, id: string) {
  const row = await db.selectFrom('slotting_proposals').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`Slotting proposal ${id}`);
  const before = Number(row.walking_before);
  const after = Number(row.walking_after);
  return {
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    period: { from: new Date(row.period_from).toISOString(), to: new Date(row.period_to).toISOString() },
    waves: row.waves,
    basis: row.basis === null ? null : { ...row.basis, summary: basisSummary(row.basis) },
    moves: row.moves.map(({ productExternalId, sku, name, from, to, picks }) => ({ productExternalId, sku, name, from, to, picks })),
    walkingBefore: before,
    walkingAfter: after,
    saving: before - after,
    savingPercent: savingPercent(before, after),
    savingByMoves: row.saving_by_moves.map(({ moves, walking }) => ({ moves, walking, savingPercent: savingPercent(before, walking) })),
    appliedAt: row.applied_at === null ? null : new Date(row.applied_at).toISOString(),
    applied: row.applied,
  };
}

/**
 * Moves the proposal's products in one transaction, under their row locks: a product changed
 * since it was proposed (or gone, or given slots since), or a location no longer placed, is
 * skipped and reported. Applying an applied proposal changes nothing.
 */
export async function applyProposal(tx: Tx, tenantId: string, id: string): Promise<{ id: string; events: [] }> {
  const proposal = await tx.selectFrom('slotting_proposals').select(['moves', 'applied_at']).where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirst();
  if (!proposal) throw notFound(`Slotting proposal ${id}`);
  if (proposal.applied_at !== null) return { id, events: [] };
  const { moves } = proposal;
  const ids = moves.map((move) => move.productId);
  const current = await sql<{ id: string; location_code: string | null; updated_at: Date; slotted: boolean }>`
    SELECT p.id, p.location_code, p.updated_at, EXISTS (SELECT 1 FROM product_slots s WHERE s.tenant_id = ${tenantId} AND s.product_id = p.id) AS slotted
    FROM products p WHERE p.tenant_id = ${tenantId} AND p.id = ANY (${ids}::uuid[])
    ORDER BY p.id FOR UPDATE OF p`.execute(tx);
  const products = new Map(current.rows.map((row) => [row.id, row]));
  const placedRows = await sql<{ code: string }>`
    SELECT code FROM warehouse_locations WHERE tenant_id = ${tenantId} AND code = ANY (${[...new Set(moves.map((move) => move.to))]}::text[]) AND aisle IS NOT NULL`.execute(tx);
  const placed = new Set(placedRows.rows.map((row) => row.code));
  const skipped: AppliedMoves['skipped'] = [];
  const moving: StoredMove[] = [];
  for (const move of moves) {
    const product = products.get(move.productId);
    const reason = !product
      ? 'the product no longer exists'
      : new Date(product.updated_at).toISOString() !== move.productUpdatedAt || product.location_code !== move.from
        ? 'the product changed since the proposal'
        : product.slotted
          ? 'the product has slots now'
          : !placed.has(move.to)
            ? `location ${move.to} has no place on the floor now`
            : undefined;
    if (reason) skipped.push({ productExternalId: move.productExternalId, reason });
    else moving.push(move);
  }
  if (moving.length > 0) {
    await sql`
      UPDATE products p SET location_code = m.code, updated_at = now()
      FROM unnest(${moving.map((move) => move.productId)}::uuid[], ${moving.map((move) => move.to)}::text[]) AS m(product_id, code)
      WHERE p.tenant_id = ${tenantId} AND p.id = m.product_id`.execute(tx);
  }
  const applied: AppliedMoves = { moved: moving.length, skipped };
  await tx.updateTable('slotting_proposals').set({ applied_at: new Date(), applied: JSON.stringify(applied) }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  return { id, events: [] };
}
