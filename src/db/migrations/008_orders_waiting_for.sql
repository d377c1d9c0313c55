-- The orders waiting for any of the given products: PENDING_VALIDATION, or PENDING with an issue
-- (src/orders/revalidation.ts). VOLATILE and in PL/pgSQL on purpose: its query takes
-- a fresh snapshot, so a statement that takes the products' keys and then calls it sees every order
-- committed under those keys, even those that committed while the statement waited for the keys.
CREATE FUNCTION orders_waiting_for(p_tenant_id uuid, p_product_external_ids text[]) RETURNS SETOF uuid
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN QUERY
    SELECT o.id FROM orders o
    WHERE o.tenant_id = p_tenant_id
      AND (o.status = 'PENDING_VALIDATION' OR (o.status = 'PENDING' AND o.has_issues))
      AND o.id IN (
        SELECT i.order_id FROM order_items i
        WHERE i.tenant_id = p_tenant_id AND i.product_external_id = ANY (p_product_external_ids)
      );
END
$$;
