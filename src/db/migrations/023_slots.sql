-- Slots: units of one product at one placed location, for a product kept at several locations. A
-- product without slots keeps all its stock at its location_code; with slots, the product's stock
-- stays what the catalog says and the slots say where its units stand (a supervisor sees the
-- products whose slots and stock disagree). No foreign key to warehouse_locations: PUT /locations
-- replaces the whole set of codes (delete, then insert), so the floor code refuses instead to
-- remove or unplace a location holding slots (src/floor/locations.ts).
CREATE TABLE product_slots (
  tenant_id uuid NOT NULL,
  product_id uuid NOT NULL,
  location_code text NOT NULL,
  quantity numeric NOT NULL CHECK (quantity >= 0 AND quantity = trunc(quantity)),
  PRIMARY KEY (tenant_id, product_id, location_code),
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);

-- A line of a wave may be planned at several stops, a part at each: `part` numbers them 1.. in
-- walking order, and `quantity` is what to take at that part's location (the line's ordered
-- quantity is the sum of its parts). Lines of waves made before have one part. A line has at most
-- one part at a location, so a pick names the part by its location code.
ALTER TABLE wave_lines ADD COLUMN part integer NOT NULL DEFAULT 1 CHECK (part >= 1);
ALTER TABLE wave_lines DROP CONSTRAINT wave_lines_pkey;
ALTER TABLE wave_lines ADD PRIMARY KEY (tenant_id, wave_id, order_id, item_position, part);
ALTER TABLE wave_lines DROP CONSTRAINT wave_lines_tenant_id_wave_id_order_id_product_external_id_key;
ALTER TABLE wave_lines ADD CONSTRAINT wave_lines_one_part_per_location UNIQUE (tenant_id, wave_id, order_id, item_position, location_code);
