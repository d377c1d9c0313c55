import { sql } from 'kysely';
import type { Db, Executor } from '../db';
import { decodeCursor } from '../http/cursor';
import { keysetAfter, pageOf, type KeyColumn } from '../http/pagination';
import { UUID } from '../http/uuid';
import { notFound } from '../http/errors';
import type { Policy } from './plan/layout';
import type { Wave, WaveLine } from './schemas';
import type { WaveStatus } from './tables';

/** The picker's PICKING wave, if any (at most one: a unique index holds it). */
export async function pickerWaveId(db: Executor, tenantId: string, pickerId: string): Promise<string | undefined> {
  const wave = await db
    .selectFrom('waves')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('picker_id', '=', pickerId)
    .where('status', '=', 'PICKING')
    .executeTakeFirst();
  return wave?.id;
}

/**
 * The line parts of the given waves in walking order, each with its JSON path in the wave
 * (`stops[2].lines[0]`, `unplaced[1]`) and the quantity its line was ordered with: the sum of its
 * parts planned with the wave, not those covering a short pick (a short pick later lowers the
 * order's item, not the wave's lines).
 */
export async function waveLines(db: Executor, tenantId: string, waveIds: string[]) {
  const rows = await db
    .selectFrom('wave_lines as l')
    .innerJoin('wave_orders as w', (join) =>
      join.onRef('w.tenant_id', '=', 'l.tenant_id').onRef('w.wave_id', '=', 'l.wave_id').onRef('w.order_id', '=', 'l.order_id'),
    )
    .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'l.tenant_id').onRef('o.id', '=', 'l.order_id'))
    .innerJoin('order_items as i', (join) =>
      join.onRef('i.tenant_id', '=', 'l.tenant_id').onRef('i.order_id', '=', 'l.order_id').onRef('i.position', '=', 'l.item_position'),
    )
    .leftJoin('products as p', (join) => join.onRef('p.tenant_id', '=', 'i.tenant_id').onRef('p.id', '=', 'i.product_id'))
    .select([
      'l.wave_id',
      'l.order_id',
      'l.item_position',
      'l.part',
      'l.covers_part',
      'l.stop',
      'l.location_code',
      'l.lot',
      'l.aisle',
      'l.position',
      'l.product_external_id',
      'l.quantity',
      'l.picked_quantity',
      'l.reason',
      'w.tote',
      'o.external_id as order_external_id',
      'o.status as order_status',
      'i.product_sku',
      'i.product_id',
      'p.barcode',
      'p.packagings',
      'p.name',
    ])
    .select(sql<string | null>`to_char(l.expires_on, 'YYYY-MM-DD')`.as('expires_on'))
    .where('l.tenant_id', '=', tenantId)
    .where('l.wave_id', '=', sql<string>`ANY (${waveIds}::uuid[])`)
    .orderBy('l.wave_id')
    .orderBy('l.walk')
    .execute();
  const lineKey = (row: { wave_id: string; order_id: string; item_position: number }) => `${row.wave_id}:${row.order_id}:${row.item_position}`;
  const ordered = new Map<string, number>();
  for (const row of rows) if (row.covers_part === null) ordered.set(lineKey(row), (ordered.get(lineKey(row)) ?? 0) + Number(row.quantity));
  let lineInGroup = 0;
  return rows.map((row, index) => {
    const previous = rows[index - 1];
    lineInGroup = previous && previous.wave_id === row.wave_id && previous.stop === row.stop ? lineInGroup + 1 : 0;
    const path = row.stop === null ? `unplaced[${lineInGroup}]` : `stops[${row.stop - 1}].lines[${lineInGroup}]`;
    return {
      ...row,
      quantity: Number(row.quantity),
      ordered_quantity: ordered.get(lineKey(row))!,
      picked_quantity: row.picked_quantity === null ? null : Number(row.picked_quantity),
      path,
    };
  });
}

/** The waves as the API shows them, in the order of `waveIds` (unknown ids are left out). */
export async function loadWaves(db: Executor, tenantId: string, waveIds: string[]): Promise<Wave[]> {
  if (waveIds.length === 0) return [];
  const [waves, orders, lines] = await Promise.all([
    db
      .selectFrom('waves as v')
      .leftJoin('staff_users as u', (join) => join.onRef('u.tenant_id', '=', 'v.tenant_id').onRef('u.id', '=', 'v.picker_id'))
      .selectAll('v')
      .select(['u.username as picker_username', 'u.name as picker_name'])
      .where('v.tenant_id', '=', tenantId)
      .where('v.id', '=', sql<string>`ANY (${waveIds}::uuid[])`)
      .execute(),
    db
      .selectFrom('wave_orders as w')
      .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'w.tenant_id').onRef('o.id', '=', 'w.order_id'))
      .select(['w.wave_id', 'w.tote', 'o.external_id', 'o.order_number'])
      .where('w.tenant_id', '=', tenantId)
      .where('w.wave_id', '=', sql<string>`ANY (${waveIds}::uuid[])`)
      .orderBy('w.wave_id')
      .orderBy('w.tote')
      .execute(),
    waveLines(db, tenantId, waveIds),
  ]);
  const byId = new Map(waves.map((wave) => [wave.id, wave]));
  // Where each line continues: the part after each in walking order (a part covering a short pick
  // may stand between parts planned with the wave).
  const following = new Map<(typeof lines)[number], (typeof lines)[number]>();
  const lastOfLine = new Map<string, (typeof lines)[number]>();
  for (const row of lines) {
    const key = `${row.wave_id}:${row.order_id}:${row.item_position}`;
    const previous = lastOfLine.get(key);
    if (previous) following.set(previous, row);
    lastOfLine.set(key, row);
  }
  return waveIds.flatMap((id) => {
    const wave = byId.get(id);
    if (!wave) return [];
    const stops: Wave['stops'] = [];
    const unplaced: WaveLine[] = [];
    for (const row of lines) {
      if (row.wave_id !== id) continue;
      const line: WaveLine = {
        orderExternalId: row.order_external_id,
        tote: row.tote,
        productExternalId: row.product_external_id,
        productSku: row.product_sku,
        barcode: row.barcode,
        packagings: row.packagings ?? [],
        name: row.name,
        quantity: row.quantity,
        orderedQuantity: row.ordered_quantity,
        lot: row.lot === '' ? null : row.lot,
        expiresOn: row.expires_on,
        next: nextPart(following.get(row)),
        pickedQuantity: row.picked_quantity,
        reason: row.reason,
      };
      if (row.stop === null) unplaced.push(line);
      else if (stops.at(-1)?.seq === row.stop) stops.at(-1)!.lines.push(line);
      else stops.push({ seq: row.stop, locationCode: row.location_code!, aisle: row.aisle!, position: row.position!, lines: [line] });
    }
    return [
      {
        id: wave.id,
        number: wave.number,
        status: wave.status,
        policy: wave.policy as Policy,
        distance: Number(wave.distance),
        sShapeDistance: Number(wave.s_shape_distance),
        orders: orders.filter((o) => o.wave_id === id).map((o) => ({ externalId: o.external_id, orderNumber: o.order_number, tote: o.tote })),
        stops,
        unplaced,
        picker: wave.picker_id ? { id: wave.picker_id, username: wave.picker_username!, name: wave.picker_name! } : null,
        createdAt: wave.created_at.toISOString(),
      },
    ];
  });
}

/** Where a line continues: its next part's location and quantity (a line split over stops has every part placed). */
function nextPart(part: { location_code: string | null; quantity: number } | undefined): WaveLine['next'] {
  return part?.location_code ? { locationCode: part.location_code, quantity: part.quantity } : null;
}

export async function loadWave(db: Executor, tenantId: string, waveId: string): Promise<Wave> {
  const [wave] = await loadWaves(db, tenantId, [waveId]);
  if (!wave) throw notFound(`Wave ${waveId}`);
  return wave;
}

/** The tenant's most recent waves, newest first, optionally of one status (the console's list). */
export async function recentWaves(db: Executor, tenantId: string, query: { limit: number; status?: WaveStatus | undefined }): Promise<Wave[]> {
  const rows = await db
    .selectFrom('waves')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .execute();
  return loadWaves(db, tenantId, rows.map((row) => row.id));
}

/** Waves in the order they were made. */
const BY_CREATION: KeyColumn[] = [
  { name: 'created_at', type: 'timestamptz' },
  { name: 'id', type: 'uuid' },
];

/** A keyset page of the tenant's waves, oldest first, optionally of one status. */
export async function listWaves(db: Db, tenantId: string, query: { limit: number; cursor?: string | undefined; status?: WaveStatus | undefined }) {
  const filtered = db
    .selectFrom('waves')
    .where('tenant_id', '=', tenantId)
    .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!));
  let page = filtered.select(['id', sql<string>`created_at::text`.as('created_key')]);
  if (query.cursor !== undefined) {
    const key = decodeCursor<[string, string]>(query.cursor, ['string', 'string'], ([createdAt, id]) => UUID.test(id) && !Number.isNaN(Date.parse(createdAt)));
    page = page.where(keysetAfter(BY_CREATION, key));
  }
  const [fetched, counted] = await Promise.all([
    page.orderBy('created_at').orderBy('id').limit(query.limit + 1).execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const { rows, hasMore, nextCursor } = pageOf(fetched, query.limit, (last) => [last.created_key, last.id]);
  return {
    waves: await loadWaves(db, tenantId, rows.map((row) => row.id)),
    pagination: { limit: query.limit, hasMore, nextCursor, total: Number(counted.total) },
  };
}
