-- Picking orders. Issues are stored with the order (they are decided at intake and re-checked when
-- the catalog changes), so reads never recompute them.
CREATE TABLE orders (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  external_id text NOT NULL,
  order_number text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'PENDING_VALIDATION', 'IN_PICKING', 'PICKED', 'PACKED', 'DISPATCHED', 'CANCELLED')),
  -- [{type, productExternalId, productSku}]; has_issues mirrors "not empty" for filtering.
  issues jsonb NOT NULL DEFAULT '[]',
  has_issues boolean NOT NULL DEFAULT false,
  priority text CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
  channel text,
  order_date timestamptz,
  due_date timestamptz,
  shipping_method text,
  shipping_address text,
  notes text,
  customer jsonb,
  metadata jsonb,
  carrier text,
  tracking_number text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  picked_at timestamptz,
  dispatched_at timestamptz,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, external_id),
  UNIQUE (tenant_id, order_number)
);
CREATE INDEX orders_by_created ON orders (tenant_id, created_at, id);
CREATE INDEX orders_by_updated ON orders (tenant_id, updated_at, id);

-- Lines of an order as the client sent them, plus the catalog product they resolved to (null while
-- unresolved). Quantities of PENDING and IN_PICKING orders are the stock they hold.
CREATE TABLE order_items (
  tenant_id uuid NOT NULL,
  order_id uuid NOT NULL,
  position integer NOT NULL,
  product_external_id text NOT NULL,
  product_sku text NOT NULL,
  -- A line picked short keeps its row with the picked quantity, possibly 0.
  quantity numeric NOT NULL CHECK (quantity >= 0),
  product_id uuid,
  PRIMARY KEY (tenant_id, order_id, position),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX order_items_by_product ON order_items (tenant_id, product_id);
CREATE INDEX order_items_by_product_external_id ON order_items (tenant_id, product_external_id);
