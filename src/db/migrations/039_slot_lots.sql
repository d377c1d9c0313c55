-- Lots at slots. A slot of a product kept by lot also names its `lot` and, when known, the day the
-- lot expires (`expires_on`); one location may hold several lots of one product, so a slot is its
-- product, location and lot. A slot without a lot has lot '' (never null, so that the key and every
-- join by it stay plain equalities); an expiry needs a lot.
ALTER TABLE product_slots
  ADD COLUMN lot text NOT NULL DEFAULT '' CHECK (char_length(lot) <= 50),
  ADD COLUMN expires_on date,
  ADD CONSTRAINT product_slots_expiry_with_lot CHECK (expires_on IS NULL OR lot <> '');
ALTER TABLE product_slots DROP CONSTRAINT product_slots_pkey;
ALTER TABLE product_slots ADD PRIMARY KEY (tenant_id, product_id, location_code, lot);
-- The lots expiring within a period (GET /lots), soonest first.
CREATE INDEX product_slots_by_expiry ON product_slots (tenant_id, expires_on) WHERE expires_on IS NOT NULL;

-- The first expiry date a line of a product kept by lot may take is today (UTC) plus this many days
-- (src/settings/).
ALTER TABLE warehouse_settings ADD COLUMN min_shelf_life_days integer NOT NULL DEFAULT 0 CHECK (min_shelf_life_days >= 0);

-- A wave line's part names the lot of its slot ('' without one) and that lot's expiry as planned, so
-- that the picker's stop names them and an order's picks say which lots went where. A line may have
-- a part per lot at one location.
ALTER TABLE wave_lines
  ADD COLUMN lot text NOT NULL DEFAULT '',
  ADD COLUMN expires_on date;
ALTER TABLE wave_lines DROP CONSTRAINT wave_lines_one_part_per_location;
ALTER TABLE wave_lines ADD CONSTRAINT wave_lines_one_part_per_slot UNIQUE (tenant_id, wave_id, order_id, item_position, location_code, lot);
-- Which orders got a lot of a product (GET /lots/{productExternalId}/{lot}/orders).
CREATE INDEX wave_lines_by_lot ON wave_lines (tenant_id, product_external_id, lot) WHERE lot <> '';
