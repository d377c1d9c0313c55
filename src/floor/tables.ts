import type { ColumnType, Generated } from 'kysely';
import type { CountReason, CountStatus, ReplenishmentReason, ReplenishmentStatus, SlotRole } from './kinds';
import type { CrossAisle } from './plan/layout';
import type { SavingPoint } from './plan/slotting';
import type { AppliedMoves, ReplayBasis, StoredMove } from './slotting';

type Numeric = ColumnType<number, number | string, number | string>;

export type WaveStatus = 'PICKING' | 'COMPLETED' | 'RELEASED';

export interface FloorTables {
  /** The warehouse's known location codes; a product with another code is saved with a warning. */
  warehouse_locations: {
    tenant_id: string;
    code: string;
    /** Where the location stands on the layout; both null for a code without a place. */
    aisle: number | null;
    position: number | null;
    level: number | null;
  };
  floor_layouts: {
    tenant_id: string;
    aisles: number;
    positions_per_aisle: number;
    aisle_spacing: Numeric;
    position_spacing: Numeric;
    cross_aisle_offset: Numeric;
    depot_aisle: number;
    /** jsonb, front to back: written as JSON text, read back parsed. */
    cross_aisles: ColumnType<CrossAisle[], string | undefined, string>;
    updated_at: Generated<Date>;
  };
  waves: {
    tenant_id: string;
    id: Generated<string>;
    /** 1, 2, 3… per tenant, taken before the wave is made (takeWaveNumber, migration 032), never changed. */
    number: ColumnType<number, number, never>;
    status: WaveStatus;
    policy: string;
    distance: Numeric;
    s_shape_distance: Numeric;
    /** The console user picking it; null for waves not assigned to anyone. */
    picker_id: ColumnType<string | null, string | null | undefined, string | null>;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  wave_orders: {
    tenant_id: string;
    wave_id: string;
    order_id: string;
    tote: number;
  };
  /** Units of one product at one placed location (slots.ts). */
  product_slots: {
    tenant_id: string;
    product_id: string;
    location_code: string;
    quantity: Numeric;
    /** A pick face (waves take from it) or reserve (it feeds the faces). */
    role: ColumnType<SlotRole, SlotRole | undefined, SlotRole>;
    /** A pick face's top-up bounds, both or neither: at `min` or below it asks for units up to `max`. */
    min: ColumnType<number | null, number | null | undefined, number | null>;
    max: ColumnType<number | null, number | null | undefined, number | null>;
    /** The lot the units belong to; '' for a slot without a lot. */
    lot: ColumnType<string, string | undefined, string>;
    /** The day the lot expires (YYYY-MM-DD as written; read with to_char), null when unknown or without a lot. */
    expires_on: ColumnType<string | null, string | null | undefined, string | null>;
  };
  /** A replenishment task: units of a product to move from a reserve slot to a pick face (replenishment.ts). */
  replenishments: {
    tenant_id: string;
    id: Generated<string>;
    product_id: string;
    from_location_code: string;
    to_location_code: string;
    quantity: Numeric;
    reason: ReplenishmentReason;
    /** 0: an order waits for it (DEMAND, SHORT); 1: a top-up (MIN). The line is by urgency, then id. */
    urgency: number;
    status: ColumnType<ReplenishmentStatus, ReplenishmentStatus | undefined, ReplenishmentStatus>;
    /** What completing moved; null until then. */
    moved_quantity: ColumnType<number | null, number | null | undefined, number | null>;
    created_at: Generated<Date>;
    done_at: ColumnType<Date | null, Date | null | undefined, Date | string | null>;
    /** The username of the console user who completed or cancelled it (or holds it, IN_PROGRESS); null through the warehouse API. */
    done_by: ColumnType<string | null, string | null | undefined, string | null>;
    /** The console user holding the task: set exactly while it is IN_PROGRESS. */
    taken_by: ColumnType<string | null, string | null | undefined, string | null>;
    /** The lot it moves ('' without one) and that lot's expiry when the task was made. */
    lot: ColumnType<string, string | undefined, string>;
    expires_on: ColumnType<string | null, string | null | undefined, string | null>;
  };
  /** A count of every product at one location (counts.ts). */
  counts: {
    tenant_id: string;
    id: Generated<string>;
    location_code: string;
    reason: CountReason;
    status: ColumnType<CountStatus, CountStatus | undefined, CountStatus>;
    created_at: Generated<Date>;
    done_at: ColumnType<Date | null, Date | null | undefined, Date | string | null>;
    done_by: ColumnType<string | null, string | null | undefined, string | null>;
  };
  /** What finishing a count found for one lot of a product ('' without one): what the records said, and what was counted. */
  count_lines: {
    tenant_id: string;
    count_id: string;
    product_id: string;
    lot: ColumnType<string, string | undefined, string>;
    recorded_quantity: Numeric;
    counted_quantity: Numeric;
  };
  /** A slotting proposal (slotting.ts): its moves, as proposed, and what applying it did. */
  slotting_proposals: {
    tenant_id: string;
    id: Generated<string>;
    period_from: Date;
    period_to: Date;
    waves: number;
    /** jsonb: written as JSON text, read back parsed. */
    moves: ColumnType<StoredMove[], string, string>;
    walking_before: Numeric;
    walking_after: Numeric;
    /** jsonb: what was replayed; null for a proposal that walked the waves as they were made. */
    basis: ColumnType<ReplayBasis | null, string | null | undefined, string | null>;
    /** jsonb: the walk with fewer moves, fewest first. */
    saving_by_moves: ColumnType<SavingPoint[], string | undefined, string>;
    created_at: Generated<Date>;
    applied_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
    applied: ColumnType<AppliedMoves | null, string | null | undefined, string | null>;
  };
  /** One part of an order line: what to take at one stop (or the whole line, unplaced). */
  wave_lines: {
    tenant_id: string;
    wave_id: string;
    order_id: string;
    item_position: number;
    /** 1.. in walking order as the wave was planned; a part planned after a short pick takes the next number. */
    part: ColumnType<number, number | undefined, number>;
    /** The part whose short pick this part covers (null: planned with the wave). */
    covers_part: ColumnType<number | null, number | null | undefined, number | null>;
    product_external_id: string;
    quantity: Numeric;
    walk: number;
    stop: number | null;
    location_code: string | null;
    /** The lot of the part's slot ('' without one) and its expiry as planned. */
    lot: ColumnType<string, string | undefined, string>;
    expires_on: ColumnType<string | null, string | null | undefined, string | null>;
    aisle: number | null;
    position: number | null;
    picked_quantity: ColumnType<number | null, number | null | undefined, number | null>;
    reason: string | null;
    picked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends FloorTables {}
}
