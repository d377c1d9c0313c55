-- Two costs every single-product upsert paid for work it did not need.
--
-- Events: the upsert that runs alone records its own event in its statement, as common table
-- expressions, which PostgreSQL runs whether or not there is an event. An insert of no rows into
-- events still fired events' statement trigger (the tenant check) and read the tenant's webhooks.
-- record_events is STRICT: given no events (NULL) it is not called at all. Every write records its
-- events through it, so the outbox has one definition.
--
-- Products: an INSERT statement fired two statement triggers, the tenant check (011) and the counts
-- (015), each a PL/pgSQL call reading the transition table, also for an upsert that updated a row
-- and inserted none. One function now does both, per tenant of the statement's new rows: the
-- tenant first (an unknown one is refused before anything is counted), then its count.

-- Records events (a jsonb array of {event, data}) for a tenant in the outbox and fans each one out
-- to a delivery row per active webhook subscribed to it; NOTIFYs `channel` when there are
-- deliveries (PostgreSQL delivers it at commit, once per transaction). Returns the deliveries.
CREATE FUNCTION record_events(p_tenant_id uuid, p_events jsonb, p_channel text) RETURNS integer
LANGUAGE plpgsql STRICT VOLATILE AS $$
DECLARE
  deliveries integer;
BEGIN
  WITH recorded AS (
    INSERT INTO events (tenant_id, event, data)
    SELECT p_tenant_id, e.item->>'event', e.item->'data'
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(item, ord)
    ORDER BY e.ord
    RETURNING id, event
  )
  INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, next_attempt_at)
  SELECT w.tenant_id, w.id, r.id, r.event, now()
  FROM recorded r
  JOIN webhooks w ON w.tenant_id = p_tenant_id AND w.is_active AND r.event = ANY (w.events);
  GET DIAGNOSTICS deliveries = ROW_COUNT;
  IF deliveries > 0 THEN
    PERFORM pg_notify(p_channel, '');
  END IF;
  RETURN deliveries;
END
$$;

CREATE FUNCTION check_and_count_new_products() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenant uuid;
  added bigint;
  added_active bigint;
BEGIN
  FOR tenant, added, added_active IN
    SELECT tenant_id, count(*), count(*) FILTER (WHERE is_active) FROM new_rows GROUP BY tenant_id ORDER BY tenant_id
  LOOP
    -- FOR KEY SHARE, as the foreign key did: the tenant cannot be deleted while this write is under way.
    PERFORM FROM tenants WHERE id = tenant FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE foreign_key_violation USING MESSAGE = format('%s: tenant %s does not exist', TG_TABLE_NAME, tenant);
    END IF;
    INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
    VALUES (tenant, product_count_slot(), added, added_active)
    ON CONFLICT (tenant_id, slot) DO UPDATE
      SET products_all = c.products_all + excluded.products_all, products_active = c.products_active + excluded.products_active;
  END LOOP;
  RETURN NULL;
END
$$;

DROP TRIGGER products_tenant_exists ON products;
DROP TRIGGER products_total_on_insert ON products;
CREATE TRIGGER products_tenant_exists_and_counted AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION check_and_count_new_products();

-- count_products now counts deletes only.
CREATE OR REPLACE FUNCTION count_products() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_product_counts AS c (tenant_id, slot, products_all, products_active)
  SELECT tenant_id, product_count_slot(), -count(*), -count(*) FILTER (WHERE is_active) FROM old_rows GROUP BY tenant_id ORDER BY tenant_id
  ON CONFLICT (tenant_id, slot) DO UPDATE
    SET products_all = c.products_all + excluded.products_all, products_active = c.products_active + excluded.products_active;
  RETURN NULL;
END
$$;
