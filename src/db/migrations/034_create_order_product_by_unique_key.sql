-- create_order reads each line's product in the form every key probe now takes (uniqueKeyRow,
-- src/db/key-probe.ts): the first row at or after (tenant, externalId) in the unique index's order,
-- kept when it is that key. The range form before it (BETWEEN v AND v ORDER BY v LIMIT 1) was
-- planned, on a fresh catalog without statistics whose unique index of long externalIds had grown
-- a level taller than the one-page primary key, as a read of the tenant's products by the primary
-- key and a sort, kept on the connection until the table was analyzed.
CREATE OR REPLACE FUNCTION create_order(p_tenant_id uuid, p_order jsonb, p_lines jsonb, p_holding text[]) RETURNS SETOF orders
LANGUAGE plpgsql STRICT VOLATILE AS $$
DECLARE
  ids uuid[];
  created orders;
BEGIN
  -- Reads by unique keys only, in the form of uniqueKeyRow (src/db/key-probe.ts): plans made on a catalog being imported.
  SELECT array_agg(CASE WHEN p.sku = l.product_sku AND l.quantity <= p.stock - coalesce(h.held, 0) THEN p.id END ORDER BY l.position)
  INTO ids
  FROM jsonb_to_recordset(p_lines) AS l(position integer, product_external_id text, product_sku text, quantity numeric)
  LEFT JOIN LATERAL (
    SELECT * FROM (
      SELECT * FROM products WHERE (tenant_id, external_id) >= (p_tenant_id, l.product_external_id) ORDER BY tenant_id, external_id LIMIT 1
    ) AS nearest WHERE nearest.tenant_id = p_tenant_id AND nearest.external_id = l.product_external_id
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
