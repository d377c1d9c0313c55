-- The counts of 015 cost every single-product upsert two statement triggers: an upsert is an INSERT
-- and an UPDATE statement, so both fired, each with its transition tables, although an update
-- moves a count only when it flips isActive. Updates now count by a row trigger that fires only on
-- such a flip (its WHEN is checked without calling the function); inserts and deletes keep their
-- statement triggers, one slot upsert per statement whatever the number of rows.
DROP TRIGGER products_total_on_update ON products;

CREATE OR REPLACE FUNCTION count_products() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
    SELECT tenant_id, product_count_slot(), count(*), count(*) FILTER (WHERE is_active) FROM new_rows GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, slot) DO UPDATE
      SET products_all = c.products_all + excluded.products_all, products_active = c.products_active + excluded.products_active;
  ELSE
    INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
    SELECT tenant_id, product_count_slot(), -count(*), -count(*) FILTER (WHERE is_active) FROM old_rows GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, slot) DO UPDATE
      SET products_all = c.products_all + excluded.products_all, products_active = c.products_active + excluded.products_active;
  END IF;
  RETURN NULL;
END
$$;

-- The tenant of a product never changes (011), so only a flip of isActive moves a count.
CREATE FUNCTION count_product_flip() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
  VALUES (NEW.tenant_id, product_count_slot(), 0, CASE WHEN NEW.is_active THEN 1 ELSE -1 END)
  ON CONFLICT (tenant_id, slot) DO UPDATE SET products_active = c.products_active + excluded.products_active;
  RETURN NULL;
END
$$;

CREATE TRIGGER products_total_on_flip AFTER UPDATE OF is_active ON products
  FOR EACH ROW WHEN (OLD.is_active IS DISTINCT FROM NEW.is_active) EXECUTE FUNCTION count_product_flip();
