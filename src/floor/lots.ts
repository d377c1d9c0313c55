import { sql } from 'kysely';
import type { Executor } from '../db';
import { decodeCursor, isCount } from '../http/cursor';
import { notFound } from '../http/errors';
import { pageOf } from '../http/pagination';
import { UUID } from '../http/uuid';
import { loadOrderView, type OrderRow } from '../orders/store';
import { firstTakeableDay } from './plan/fefo';
import { isCalendarDay } from './slots';

/** Units of one lot that went to an order's item. */
export interface PickedLot {
  lot: string;
  expiresOn: string | null;
  quantity: number;
}

/**
 * The lots each item of the order was picked from, by product externalId (an order lists a product
 * once): the parts with a lot and units picked of its waves COMPLETED (a released wave's picks were
 * never taken), earliest expiry first. Read by keys: the order's waves (wave_orders by order), each
 * wave's lines of the order by the lines' key.
 */
export async function pickedLots(db: Executor, tenantId: string, orderId: string): Promise<Map<string, PickedLot[]>> {
  const { rows } = await sql<{ product_external_id: string; lot: string; expires_on: string | null; quantity: string }>`
    SELECT l.product_external_id, l.lot, to_char(l.expires_on, 'YYYY-MM-DD') AS expires_on, sum(l.picked_quantity) AS quantity
    FROM wave_orders wo
    JOIN waves w ON w.tenant_id = ${tenantId} AND w.id = wo.wave_id AND w.status = 'COMPLETED'
    CROSS JOIN LATERAL (
      SELECT l.product_external_id, l.lot, l.expires_on, l.picked_quantity FROM wave_lines l
      WHERE l.tenant_id = ${tenantId} AND l.wave_id = wo.wave_id AND l.order_id = wo.order_id
      ORDER BY l.tenant_id, l.wave_id, l.order_id, l.item_position
    ) AS l
    WHERE wo.tenant_id = ${tenantId} AND wo.order_id = ${orderId} AND l.lot <> '' AND l.picked_quantity > 0
    GROUP BY l.product_external_id, l.lot, l.expires_on
    ORDER BY l.product_external_id, l.expires_on NULLS LAST, l.lot`.execute(db);
  const lots = new Map<string, PickedLot[]>();
  for (const row of rows) {
    const of = lots.get(row.product_external_id) ?? lots.set(row.product_external_id, []).get(row.product_external_id)!;
    of.push({ lot: row.lot, expiresOn: row.expires_on, quantity: Number(row.quantity) });
  }
  return lots;
}

/** The public view of the order, each item with the lots it got (pickedLots) when it got any: the public read and the pack station's. */
export async function orderViewWithLots(db: Executor, tenantId: string, order: OrderRow) {
  const [view, lots] = await Promise.all([loadOrderView(db, tenantId, order), pickedLots(db, tenantId, order.id)]);
  const items: ((typeof view.items)[number] & { lots?: PickedLot[] })[] = view.items.map((item) => (lots.has(item.productExternalId) ? { ...item, lots: lots.get(item.productExternalId)! } : item));
  return { ...view, items };
}

/** An order that got units of a lot. */
export interface LotOrder {
  orderExternalId: string;
  orderNumber: string;
  quantity: number;
}

/**
 * A keyset page of the orders that got units of `lot` of the product (the recall question), by
 * order id: the picks of its waves COMPLETED. 404 for an unknown product. The lines are read by the
 * lot's index, each order by its key.
 */
export async function lotOrders(db: Executor, tenantId: string, productExternalId: string, lot: string, query: { limit: number; cursor?: string | undefined }) {
  const product = await db.selectFrom('products').select('id').where('tenant_id', '=', tenantId).where('external_id', '=', productExternalId).executeTakeFirst();
  if (!product) throw notFound(`Product ${productExternalId}`);
  const position = query.cursor === undefined ? undefined : decodeCursor<[string, number]>(query.cursor, ['string', 'number'], ([id, total]) => UUID.test(id) && isCount(total));
  const { rows } = await sql<{ id: string; external_id: string; order_number: string; quantity: string; total: string }>`
    SELECT o.id, o.external_id, o.order_number, sum(l.picked_quantity) AS quantity, count(*) OVER () AS total
    FROM wave_lines l
    JOIN waves w ON w.tenant_id = ${tenantId} AND w.id = l.wave_id AND w.status = 'COMPLETED'
    JOIN orders o ON o.tenant_id = ${tenantId} AND o.id = l.order_id
    WHERE l.tenant_id = ${tenantId} AND l.product_external_id = ${productExternalId} AND l.lot = ${lot} AND l.lot <> '' AND l.picked_quantity > 0
      ${position === undefined ? sql`` : sql`AND l.order_id > ${position[0]}::uuid`}
    GROUP BY o.id, o.external_id, o.order_number
    ORDER BY o.id
    LIMIT ${query.limit + 1}`.execute(db);
  const total = position ? position[1] : Number(rows[0]?.total ?? 0);
  const { rows: shown, hasMore, nextCursor } = pageOf(rows, query.limit, (last) => [last.id, total]);
  return {
    orders: shown.map((row): LotOrder => ({ orderExternalId: row.external_id, orderNumber: row.order_number, quantity: Number(row.quantity) })),
    pagination: { limit: query.limit, hasMore, nextCursor, total },
  };
}

/** A lot at the slots, with when it expires and how many units stand where. */
export interface ExpiringLot {
  productExternalId: string;
  sku: string;
  lot: string;
  expiresOn: string;
  quantity: number;
  locationCodes: string[];
}

/**
 * A keyset page of the lots that expire within `days` days from today, UTC (those already expired
 * first), soonest first, then by product id and lot: each lot of a product once, with the units its
 * slots hold and their locations. Read by the slots' expiry index.
 */
export async function expiringLots(db: Executor, tenantId: string, query: { days: number; limit: number; cursor?: string | undefined }) {
  const last = firstTakeableDay(new Date(), query.days);
  const after =
    query.cursor === undefined
      ? undefined
      : decodeCursor<[string, string, string, number]>(query.cursor, ['string', 'string', 'string', 'number'], ([day, id, , total]) => isCalendarDay(day) && UUID.test(id) && isCount(total));
  const { rows } = await sql<{ product_id: string; external_id: string; sku: string; lot: string; expires_on: string; quantity: string; codes: string[]; total: string }>`
    SELECT s.product_id, p.external_id, p.sku, s.lot, to_char(s.expires_on, 'YYYY-MM-DD') AS expires_on, sum(s.quantity) AS quantity, count(*) OVER () AS total,
      array_agg(s.location_code ORDER BY s.location_code) AS codes
    FROM product_slots s
    JOIN products p ON p.tenant_id = ${tenantId} AND p.id = s.product_id
    WHERE s.tenant_id = ${tenantId} AND s.expires_on IS NOT NULL AND s.expires_on <= ${last}::date
      ${after === undefined ? sql`` : sql`AND (s.expires_on, s.product_id, s.lot) > (${after[0]}::date, ${after[1]}::uuid, ${after[2]})`}
    GROUP BY s.expires_on, s.product_id, p.external_id, p.sku, s.lot
    ORDER BY s.expires_on, s.product_id, s.lot
    LIMIT ${query.limit + 1}`.execute(db);
  const total = after ? after[3] : Number(rows[0]?.total ?? 0);
  const { rows: shown, hasMore, nextCursor } = pageOf(rows, query.limit, (row) => [row.expires_on, row.product_id, row.lot, total]);
  return {
    lots: shown.map(
      (row): ExpiringLot => ({ productExternalId: row.external_id, sku: row.sku, lot: row.lot, expiresOn: row.expires_on, quantity: Number(row.quantity), locationCodes: row.codes }),
    ),
    pagination: { limit: query.limit, hasMore, nextCursor, total },
  };
}
