-- A new order written as one autocommitted statement (src/orders/intake.ts, `createOrderAlone`)
-- calls this once it holds the keys of the order's products: the product ids of its lines, in
-- order, when every line resolves (a product of that externalId with that sku) and asks for no more
-- than the stock that orders in `p_holding` statuses leave available; NULL when any line does not,
-- and the order is then decided in a transaction, which words its issues. VOLATILE and in PL/pgSQL
-- on purpose: its query takes a fresh snapshot, which sees every order committed under those keys,
-- also while the calling statement waited for them. STRICT: called with NULL lines, it does not run.
-- `p_lines` is a jsonb array of {product_external_id, product_sku, quantity} (other keys ignored).
CREATE FUNCTION order_lines_ready(p_tenant_id uuid, p_lines jsonb, p_holding text[]) RETURNS uuid[]
LANGUAGE plpgsql STRICT VOLATILE AS $$
DECLARE
  ids uuid[];
BEGIN
  SELECT array_agg(CASE WHEN p.sku = l.product_sku AND l.quantity <= p.stock - coalesce(h.held, 0) THEN p.id END ORDER BY l.ord)
  INTO ids
  FROM ROWS FROM (jsonb_to_recordset(p_lines) AS (product_external_id text, product_sku text, quantity numeric))
    WITH ORDINALITY AS l(product_external_id, product_sku, quantity, ord)
  -- Reads by unique keys only (src/db/key-probe.ts): plans made on a catalog being imported.
  LEFT JOIN LATERAL (
    SELECT id, sku, stock FROM products
    WHERE tenant_id = p_tenant_id AND external_id BETWEEN l.product_external_id AND l.product_external_id ORDER BY external_id LIMIT 1
  ) AS p ON true
  LEFT JOIN LATERAL (
    SELECT sum(i.quantity) AS held FROM order_items i
    WHERE i.tenant_id = p_tenant_id AND i.product_id = p.id
      AND (SELECT o.status FROM orders o WHERE o.tenant_id = i.tenant_id AND o.id BETWEEN i.order_id AND i.order_id ORDER BY o.id LIMIT 1) = ANY (p_holding)
  ) AS h ON true;
  IF array_position(ids, NULL) IS NOT NULL THEN
    RETURN NULL;
  END IF;
  RETURN ids;
END
$$;
