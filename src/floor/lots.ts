import { sql } from 'kysely';
import type { Executor } from '../db';

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
