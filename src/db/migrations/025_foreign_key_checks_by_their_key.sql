-- PostgreSQL checks a foreign key with a query of its own per inserted row (`SELECT 1 FROM orders
-- WHERE tenant_id = $1 AND id = $2 FOR KEY SHARE`), planned once per connection and kept for as long
-- as the table's statistics do not change. Planned on a table without statistics (a fresh install
-- during its first import), every index leading with tenant_id costs the same for it, and the
-- planner takes the newest one: the listing indexes orders_by_updated and products_by_update (and
-- wave_orders_by_order for a wave's orders), created after the primary keys. Such a plan reads all of
-- a tenant's entries of that index per check, for each line of every new order. Creating the
-- referenced keys again makes them the newest indexes of their tables, so that the tie goes to them;
-- test/db/plans.test.ts checks every foreign key's check on a schema without statistics, so that a
-- later index on these tables that takes the tie back fails there (docs/architecture.md).
ALTER TABLE order_items DROP CONSTRAINT order_items_tenant_id_order_id_fkey;
ALTER TABLE wave_orders DROP CONSTRAINT wave_orders_tenant_id_order_id_fkey;
ALTER TABLE product_slots DROP CONSTRAINT product_slots_tenant_id_product_id_fkey;
ALTER TABLE wave_lines DROP CONSTRAINT wave_lines_tenant_id_wave_id_order_id_fkey;
ALTER TABLE tote_labels DROP CONSTRAINT tote_labels_tenant_id_wave_id_order_id_fkey;

ALTER TABLE orders DROP CONSTRAINT orders_pkey, ADD CONSTRAINT orders_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE products DROP CONSTRAINT products_pkey, ADD CONSTRAINT products_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE wave_orders DROP CONSTRAINT wave_orders_pkey, ADD CONSTRAINT wave_orders_pkey PRIMARY KEY (tenant_id, wave_id, order_id);

ALTER TABLE order_items ADD CONSTRAINT order_items_tenant_id_order_id_fkey
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE;
ALTER TABLE wave_orders ADD CONSTRAINT wave_orders_tenant_id_order_id_fkey
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id);
ALTER TABLE product_slots ADD CONSTRAINT product_slots_tenant_id_product_id_fkey
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id);
ALTER TABLE wave_lines ADD CONSTRAINT wave_lines_tenant_id_wave_id_order_id_fkey
  FOREIGN KEY (tenant_id, wave_id, order_id) REFERENCES wave_orders (tenant_id, wave_id, order_id);
ALTER TABLE tote_labels ADD CONSTRAINT tote_labels_tenant_id_wave_id_order_id_fkey
  FOREIGN KEY (tenant_id, wave_id, order_id) REFERENCES wave_orders (tenant_id, wave_id, order_id);
