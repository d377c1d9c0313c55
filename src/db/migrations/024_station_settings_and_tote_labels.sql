-- How a warehouse runs its console (src/settings/): a row only once a setting was changed; the
-- defaults below are what a warehouse without one gets.
CREATE TABLE warehouse_settings (
  tenant_id uuid NOT NULL PRIMARY KEY REFERENCES tenants (id),
  tote_labels boolean NOT NULL DEFAULT false,
  confirm_location boolean NOT NULL DEFAULT true,
  pack_on_last_scan boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The label scanned onto a wave's tote (src/totes/), one per tote. One row per label: binding it
-- again replaces the row, which src/totes/labels.ts allows only once its order is off the floor
-- (packed, dispatched, cancelled, or back to PENDING with its wave released).
CREATE TABLE tote_labels (
  tenant_id uuid NOT NULL,
  label text NOT NULL,
  wave_id uuid NOT NULL,
  order_id uuid NOT NULL,
  bound_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, label),
  UNIQUE (tenant_id, wave_id, order_id),
  FOREIGN KEY (tenant_id, wave_id, order_id) REFERENCES wave_orders (tenant_id, wave_id, order_id)
);
CREATE INDEX tote_labels_order ON tote_labels (tenant_id, order_id);
