-- create_order no longer looks up the order's externalId and orderNumber before writing it: the
-- insert of the order does nothing on a conflict with a unique key (ON CONFLICT DO NOTHING), and the
-- function then writes nothing and returns no row, as it did when the lookups found the order.
--
-- Why: the lookups were planned once per connection on a table without statistics during a fresh
-- import, where every index leading with tenant_id costs about the same and the planner weighs them
-- by their current size. Once the unique index of long externalIds outgrew the primary key, a
-- connection planned the lookup as a read of all of the tenant's orders through orders_pkey, then
-- a sort: every new order read every order before it. The insert finds a taken key through the
-- unique indexes themselves, whatever the statistics, and saves the two lookups' executor set-up.
--
-- The same guarantees: an order whose externalId or orderNumber is taken, committed or by a
-- concurrent insert (which the insert waits for), is not written; neither are its lines. The lines
-- are checked first (reads only), so that an order whose lines do not resolve inserts nothing.
CREATE OR REPLACE FUNCTION create_order(p_tenant_id uuid, p_order jsonb, p_lines jsonb, p_holding text[]) RETURNS SETOF orders
LANGUAGE plpgsql STRICT VOLATILE AS $$
DECLARE
  ids uuid[];
  created orders;
BEGIN
  -- Reads by unique keys only: plans made on a catalog being imported.
  SELECT array_agg(CASE WHEN p.sku = l.product_sku AND l.quantity <= p.stock - coalesce(h.held, 0) THEN p.id END ORDER BY l.position)
  INTO ids
  FROM jsonb_to_recordset(p_lines) AS l(position integer, product_external_id text, product_sku text, quantity numeric)
  LEFT JOIN LATERAL (
    SELECT id, sku, stock FROM products
    WHERE tenant_id = p_tenant_id AND external_id BETWEEN l.product_external_id AND l.product_external_id ORDER BY external_id LIMIT 1
  ) AS p ON true
  LEFT JOIN LATERAL held_stock(p_tenant_id, p.id, p_holding, NULL) AS h ON true;
  IF array_position(ids, NULL) IS NOT NULL THEN
    RETURN;
  END IF;
  INSERT INTO orders (tenant_id, external_id, order_number, status, issues, has_issues, priority, channel, order_date,
    due_date, shipping_method, shipping_address, notes, customer, metadata)
  SELECT p_tenant_id, r.external_id, r.order_number, r.status, r.issues, r.has_issues, r.priority, r.channel, r.order_date,
    r.due_date, r.shipping_method, r.shipping_address, r.notes, r.customer, r.metadata
  FROM jsonb_populate_record(NULL::orders, p_order) AS r
  ON CONFLICT DO NOTHING
  RETURNING * INTO created;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO order_items (tenant_id, order_id, position, product_external_id, product_sku, quantity, product_id)
  SELECT p_tenant_id, created.id, l.position, l.product_external_id, l.product_sku, l.quantity, ids[l.position + 1]
  FROM jsonb_to_recordset(p_lines) AS l(position integer, product_external_id text, product_sku text, quantity numeric);
  RETURN NEXT created;
END
$$;
