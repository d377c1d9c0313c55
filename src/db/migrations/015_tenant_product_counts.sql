-- The first page of GET /products (no cursor, no updated_since) reads its `total` from here
-- instead of counting the catalog. Triggers on products keep the counts in the writing statement's
-- transaction, so they are exact under concurrent writes and undone by a rollback.
--
-- Each tenant's count is spread over slots, summed at read: every write that changes a count
-- updates a slot row and holds its lock until it commits, so with one row per tenant concurrent
-- writers of a tenant would queue on it. A transaction always uses the same slot (from its
-- transaction id), so it never waits for a second slot row while holding one.
CREATE TABLE tenant_product_counts (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  slot smallint NOT NULL,
  products_all bigint NOT NULL,
  products_active bigint NOT NULL,
  PRIMARY KEY (tenant_id, slot)
);

CREATE FUNCTION product_count_slot() RETURNS smallint LANGUAGE sql VOLATILE AS $$
  SELECT (pg_current_xact_id()::text::bigint % 32)::smallint
$$;

-- The change a statement made to each tenant's counts, added to the transaction's slot: one upsert
-- per statement and tenant whatever the number of rows, and none when nothing changed (an update
-- that does not flip isActive, the bulk of updates, writes nothing here).
CREATE FUNCTION count_products() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each query names only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
    SELECT tenant_id, product_count_slot(), count(*), count(*) FILTER (WHERE is_active) FROM new_rows GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, slot) DO UPDATE
      SET products_all = c.products_all + excluded.products_all, products_active = c.products_active + excluded.products_active;
  ELSIF TG_OP = 'UPDATE' THEN
    -- The tenant of a product never changes (011), so only isActive can move a count.
    INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
    SELECT tenant_id, product_count_slot(), 0, sum(change)
    FROM (
      SELECT tenant_id, 1 AS change FROM new_rows WHERE is_active
      UNION ALL
      SELECT tenant_id, -1 FROM old_rows WHERE is_active
    ) AS changes
    GROUP BY tenant_id HAVING sum(change) <> 0 ORDER BY tenant_id
    ON CONFLICT (tenant_id, slot) DO UPDATE SET products_active = c.products_active + excluded.products_active;
  ELSE
    INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
    SELECT tenant_id, product_count_slot(), -count(*), -count(*) FILTER (WHERE is_active) FROM old_rows GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, slot) DO UPDATE
      SET products_all = c.products_all + excluded.products_all, products_active = c.products_active + excluded.products_active;
  END IF;
  RETURN NULL;
END
$$;

-- Named to fire after products_tenant_exists (triggers fire in name order), so that a product of
-- an unknown tenant is refused by that check first.
CREATE TRIGGER products_total_on_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_products();
CREATE TRIGGER products_total_on_update AFTER UPDATE ON products
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_products();
CREATE TRIGGER products_total_on_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_products();

-- The existing catalogs, counted once. Creating the triggers locked products against writes
-- until this migration commits, so no write falls between the count and the triggers.
INSERT INTO tenant_product_counts (tenant_id, slot, products_all, products_active)
SELECT tenant_id, 0, count(*), count(*) FILTER (WHERE is_active) FROM products GROUP BY tenant_id;
