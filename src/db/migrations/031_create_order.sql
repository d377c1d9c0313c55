-- What orders hold of a product, and a clean new order written by one function call.
--
-- held_stock: the quantity of `p_product_id` that the tenant's orders in `p_holding` statuses hold,
-- but order `p_except_order_id` (NULL: none), or NULL when none. The one definition of the holds:
-- intake's catalog read (src/orders/assessment.ts, `catalogQuery`) and `create_order` both call it.
-- A SQL function returning a set, not STRICT, not VOLATILE: PostgreSQL inlines it into the query
-- calling it, which plans it as its own subquery (no call per product) and runs it in its snapshot.
-- Each line's order is read through its primary key (a subquery per line): as a join, the planner,
-- misled by the statistics of a tenant's first orders, scanned all of the tenant's orders per line.
CREATE FUNCTION held_stock(p_tenant_id uuid, p_product_id uuid, p_holding text[], p_except_order_id uuid)
RETURNS TABLE (held numeric) LANGUAGE sql STABLE AS $$
  SELECT sum(i.quantity) FROM order_items i
  WHERE i.tenant_id = p_tenant_id AND i.product_id = p_product_id AND i.order_id IS DISTINCT FROM p_except_order_id
    AND (SELECT o.status FROM orders o WHERE o.tenant_id = i.tenant_id AND o.id BETWEEN i.order_id AND i.order_id ORDER BY o.id LIMIT 1) = ANY (p_holding)
$$;

-- create_order: POST /orders of a new order as one autocommitted statement (src/orders/intake.ts,
-- `createOrderAlone`), called once that statement holds the keys of the order's products. Writes
-- the order (as the caller made it: PENDING without issues) and its lines, and returns it, when
-- every line resolves (a product of that externalId with that sku) and asks for no more than the
-- stock that orders in `p_holding` statuses leave available, and no order holds its externalId or
-- orderNumber. Otherwise it writes nothing and returns no row: the order is decided in a
-- transaction, which words its issues. PL/pgSQL on purpose: its statements' plans are kept for the
-- session, and each statement takes a fresh snapshot, which sees every order committed under those
-- keys, also while the calling statement waited for them. STRICT: called with NULL lines, it does
-- not run. `p_order` is the order as a jsonb object of orders' columns; `p_lines` a jsonb array of
-- {position, product_external_id, product_sku, quantity}, in position order (other keys ignored).
--
-- Each line's product is read in the form of uniqueKeyRow (src/db/key-probe.ts): the first row at
-- or after (tenant, externalId) in the unique index's order, kept when it is that key, which no
-- other index can serve, whatever the statistics. The order's own keys are not looked up: its insert
-- does nothing on a conflict with a unique key (ON CONFLICT DO NOTHING), which finds a taken key,
-- committed or being inserted (it waits for that one), through the unique indexes themselves. The
-- lines are checked first (reads only), so an order whose lines do not resolve inserts nothing.
CREATE FUNCTION create_order(p_tenant_id uuid, p_order jsonb, p_lines jsonb, p_holding text[]) RETURNS SETOF orders
LANGUAGE plpgsql STRICT VOLATILE AS $$
DECLARE
  ids uuid[];
  created orders;
BEGIN
  -- The lines' products by their unique key (uniqueKeyRow's form): plans made on a catalog being imported.
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

-- Replaced by create_order.
DROP FUNCTION order_lines_ready(uuid, jsonb, text[]);
