-- The warehouse floor: a layout per tenant, places of locations on it, and waves (pick lists for a
-- cart of several orders).

-- A single-block warehouse of parallel aisles between a front and a back cross aisle; the routing
-- code checks the values (src/floor/plan/layout.ts), these checks only keep nonsense out.
CREATE TABLE floor_layouts (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  aisles integer NOT NULL CHECK (aisles >= 1),
  positions_per_aisle integer NOT NULL CHECK (positions_per_aisle >= 1),
  aisle_spacing numeric NOT NULL CHECK (aisle_spacing > 0),
  position_spacing numeric NOT NULL CHECK (position_spacing > 0),
  cross_aisle_offset numeric NOT NULL CHECK (cross_aisle_offset >= 0),
  depot_aisle integer NOT NULL CHECK (depot_aisle BETWEEN 1 AND aisles),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id)
);

-- A location is placed when it has an aisle and a position; codes sent without a place have none.
ALTER TABLE warehouse_locations
  ADD COLUMN aisle integer CHECK (aisle >= 1),
  ADD COLUMN position integer CHECK (position >= 1),
  ADD COLUMN level integer CHECK (level >= 1),
  ADD CONSTRAINT warehouse_locations_placed CHECK ((aisle IS NULL) = (position IS NULL));

CREATE TABLE waves (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT uuid_v7(),
  status text NOT NULL CHECK (status IN ('PICKING', 'COMPLETED', 'RELEASED')),
  policy text NOT NULL,
  -- The route's length under the wave's policy and under S-shape, fixed when the wave is made.
  distance numeric NOT NULL,
  s_shape_distance numeric NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
-- Keyset pages of GET /waves, with and without ?status=.
CREATE INDEX waves_by_created ON waves (tenant_id, created_at, id);
CREATE INDEX waves_by_status ON waves (tenant_id, status, created_at, id);

-- The orders of a wave, one tote each (1..n in the order they were chosen).
CREATE TABLE wave_orders (
  tenant_id uuid NOT NULL,
  wave_id uuid NOT NULL,
  order_id uuid NOT NULL,
  tote integer NOT NULL CHECK (tote >= 1),
  PRIMARY KEY (tenant_id, wave_id, order_id),
  UNIQUE (tenant_id, wave_id, tote),
  FOREIGN KEY (tenant_id, wave_id) REFERENCES waves (tenant_id, id),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id)
);
CREATE INDEX wave_orders_by_order ON wave_orders (tenant_id, order_id);

-- One line per item of each order: the quantity ordered and where it is picked, fixed when the
-- wave is made (a short pick later lowers the order's item, not this line). `stop`
-- numbers the stops in walking order (null for a product without a placed location) and `walk`
-- orders every line of the wave, unplaced ones last. picked_quantity stays null until recorded.
CREATE TABLE wave_lines (
  tenant_id uuid NOT NULL,
  wave_id uuid NOT NULL,
  order_id uuid NOT NULL,
  item_position integer NOT NULL,
  product_external_id text NOT NULL,
  quantity numeric NOT NULL,
  walk integer NOT NULL,
  stop integer,
  location_code text,
  aisle integer,
  position integer,
  picked_quantity numeric CHECK (picked_quantity >= 0),
  reason text,
  picked_at timestamptz,
  PRIMARY KEY (tenant_id, wave_id, order_id, item_position),
  UNIQUE (tenant_id, wave_id, order_id, product_external_id),
  FOREIGN KEY (tenant_id, wave_id, order_id) REFERENCES wave_orders (tenant_id, wave_id, order_id)
);

-- Wave candidates, most urgent first: PENDING orders without issues by priority (no priority ranks
-- as medium), then due date (none last), then age. POST /waves reads the first few hundred.
CREATE FUNCTION order_urgency(priority text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'low' THEN 3 ELSE 2 END
$$;
CREATE INDEX orders_wave_candidates ON orders (tenant_id, order_urgency(priority), due_date, created_at, id)
  WHERE status = 'PENDING' AND NOT has_issues;
