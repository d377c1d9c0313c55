CREATE TABLE products (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  external_id text NOT NULL,
  sku text NOT NULL,
  name text NOT NULL,
  stock numeric NOT NULL DEFAULT 0 CHECK (stock >= 0),
  location_code text,
  price numeric,
  weight numeric,
  length numeric,
  width numeric,
  height numeric,
  barcode text,
  category text,
  supplier text,
  brand text,
  is_active boolean NOT NULL DEFAULT true,
  is_combo boolean NOT NULL DEFAULT false,
  image_url text,
  metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, external_id),
  UNIQUE (tenant_id, sku)
);

-- Location codes the warehouse knows; an unknown code on a product is saved with a warning.
CREATE TABLE warehouse_locations (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  code text NOT NULL,
  PRIMARY KEY (tenant_id, code)
);

-- Keyset pages of GET /products with updated_since, in (updated_at, id) order; the whole-catalog
-- listing walks the primary key (tenant_id, id).
CREATE INDEX products_by_update ON products (tenant_id, updated_at, id);
