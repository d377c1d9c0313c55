-- Counts (cycle counting): someone counts every product at one location, blind, and finishing the
-- count sets the location's slots to what was found (src/floor/counts.ts). `reason` says who asked:
-- REQUESTED (POST /counts) or SHORT_PICK (a short pick found a slot emptier than recorded).
-- done_at and done_by are set when the count is finished (DONE) or cancelled (done_by: the console
-- user's username, null through the warehouse API).
CREATE TABLE counts (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT uuid_v7(),
  location_code text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('REQUESTED', 'SHORT_PICK')),
  status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'DONE', 'CANCELLED')),
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  done_by text,
  CONSTRAINT counts_done_when_closed CHECK ((status IN ('DONE', 'CANCELLED')) = (done_at IS NOT NULL))
);
-- At most one open count per location: counts are made with INSERT ... ON CONFLICT DO NOTHING on
-- this index, so that two requests (or a request and a short pick) at once make one.
CREATE UNIQUE INDEX counts_one_open_per_location ON counts (tenant_id, location_code) WHERE status = 'OPEN';
-- Keyset pages of GET /counts, with and without ?status=, by location, then oldest first.
CREATE INDEX counts_by_location ON counts (tenant_id, location_code, id);
CREATE INDEX counts_by_status ON counts (tenant_id, status, location_code, id);
-- The primary key last: the newest index of the table, so that the foreign key check of
-- count_lines probes it, not a listing index, on a table without statistics (migration 025).
ALTER TABLE counts ADD CONSTRAINT counts_pkey PRIMARY KEY (tenant_id, id);

-- What finishing a count found, per product at the location: `recorded_quantity` what the records
-- said stands there (the slot, less the units open waves recorded as picked there), and
-- `counted_quantity` what was counted. The stock changed by their difference.
CREATE TABLE count_lines (
  tenant_id uuid NOT NULL,
  count_id uuid NOT NULL,
  product_id uuid NOT NULL,
  recorded_quantity numeric NOT NULL CHECK (recorded_quantity >= 0 AND recorded_quantity = trunc(recorded_quantity)),
  counted_quantity numeric NOT NULL CHECK (counted_quantity >= 0 AND counted_quantity = trunc(counted_quantity)),
  PRIMARY KEY (tenant_id, count_id, product_id),
  FOREIGN KEY (tenant_id, count_id) REFERENCES counts (tenant_id, id),
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
);
