-- Pick faces and reserve. A slot is a pick face (role 'pick', what waves and routes for items take
-- from) or reserve (role 'reserve', what feeds the faces). A pick face may say when it asks for a
-- top-up: `min` and `max` together (0 <= min <= max, `max` what the face holds), or neither (such a
-- face never asks for one). Slots written before are pick faces without them.
ALTER TABLE product_slots
  ADD COLUMN role text NOT NULL DEFAULT 'pick' CHECK (role IN ('pick', 'reserve')),
  ADD COLUMN min integer CHECK (min >= 0),
  ADD COLUMN max integer,
  ADD CONSTRAINT product_slots_min_and_max_together CHECK ((min IS NULL) = (max IS NULL)),
  ADD CONSTRAINT product_slots_min_at_most_max CHECK (min <= max),
  ADD CONSTRAINT product_slots_limits_only_on_faces CHECK (role = 'pick' OR min IS NULL);

-- Whether waves and routes for items may take from reserve slots when the pick faces cannot cover a
-- line (src/settings/).
ALTER TABLE warehouse_settings ADD COLUMN pick_from_reserve boolean NOT NULL DEFAULT false;

-- Replenishment tasks: move `quantity` units of a product from a reserve slot to a pick face
-- (src/floor/replenishment.ts). `urgency` orders the line: 0 for a task an order waits for
-- (DEMAND, SHORT), 1 for a top-up (MIN); within it, oldest first (ids are time-ordered).
-- `moved_quantity` is what completing moved; done_at and done_by are set when the task is done or
-- cancelled (done_by: the console user, null through the warehouse API).
CREATE TABLE replenishments (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT uuid_v7(),
  product_id uuid NOT NULL,
  from_location_code text NOT NULL,
  to_location_code text NOT NULL,
  quantity numeric NOT NULL CHECK (quantity > 0 AND quantity = trunc(quantity)),
  reason text NOT NULL CHECK (reason IN ('MIN', 'DEMAND', 'SHORT')),
  urgency smallint NOT NULL CHECK (urgency IN (0, 1)),
  status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED')),
  moved_quantity numeric CHECK (moved_quantity > 0 AND moved_quantity = trunc(moved_quantity)),
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  done_by text,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id),
  CONSTRAINT replenishments_done_when_closed CHECK ((status IN ('DONE', 'CANCELLED')) = (done_at IS NOT NULL)),
  CONSTRAINT replenishments_moved_when_done CHECK ((status = 'DONE') = (moved_quantity IS NOT NULL))
);
-- At most one open task per pick face: the service makes tasks with INSERT ... ON CONFLICT DO
-- NOTHING on this index, so that two checks at once make one.
CREATE UNIQUE INDEX replenishments_one_open_per_face ON replenishments (tenant_id, product_id, to_location_code)
  WHERE status IN ('OPEN', 'IN_PROGRESS');
-- Keyset pages of GET /replenishments, with and without ?status=, first in line first.
CREATE INDEX replenishments_in_line ON replenishments (tenant_id, urgency, id);
CREATE INDEX replenishments_by_status ON replenishments (tenant_id, status, urgency, id);
