-- Products and events are written in bulk (a batch of 200 products, the events of its stock
-- changes). Their foreign key to tenants checked every row on its own: 200 look-ups and locks of
-- the same tenant row per batch, 15% of the batch insert's server time. These triggers keep the
-- same guarantees with one check per statement:
--  - a row written for a tenant that does not exist fails the statement (foreign_key_violation);
--    the statement locks its tenants FOR KEY SHARE, as the foreign key did, so that a tenant
--    cannot be deleted while a write to it is under way;
--  - a tenant cannot be deleted, nor its id changed, while products or events refer to it;
--  - a product's or an event's tenant never changes.

CREATE FUNCTION check_tenants_of_new_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenant uuid;
BEGIN
  FOR tenant IN SELECT DISTINCT tenant_id FROM new_rows LOOP
    PERFORM FROM tenants WHERE id = tenant FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE foreign_key_violation USING MESSAGE = format('%s: tenant %s does not exist', TG_TABLE_NAME, tenant);
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE FUNCTION refuse_tenant_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE foreign_key_violation USING MESSAGE = format('%s: the tenant of a row never changes', TG_TABLE_NAME);
END
$$;

-- VOLATILE, so in READ COMMITTED each look-up takes a fresh snapshot: it sees the rows of a write
-- that held the tenant's FOR KEY SHARE lock until it committed.
CREATE FUNCTION refuse_removing_referenced_tenant() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT FROM products WHERE tenant_id = OLD.id) OR EXISTS (SELECT FROM events WHERE tenant_id = OLD.id) THEN
    RAISE foreign_key_violation USING MESSAGE = format('tenant %s is referenced by its products or events', OLD.id);
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END
$$;

ALTER TABLE products DROP CONSTRAINT products_tenant_id_fkey;
CREATE TRIGGER products_tenant_exists AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION check_tenants_of_new_rows();
CREATE TRIGGER products_tenant_fixed BEFORE UPDATE OF tenant_id ON products
  FOR EACH ROW WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id) EXECUTE FUNCTION refuse_tenant_change();

ALTER TABLE events DROP CONSTRAINT events_tenant_id_fkey;
CREATE TRIGGER events_tenant_exists AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION check_tenants_of_new_rows();
CREATE TRIGGER events_tenant_fixed BEFORE UPDATE OF tenant_id ON events
  FOR EACH ROW WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id) EXECUTE FUNCTION refuse_tenant_change();

CREATE TRIGGER tenant_referenced_by_products_or_events BEFORE DELETE OR UPDATE OF id ON tenants
  FOR EACH ROW EXECUTE FUNCTION refuse_removing_referenced_tenant();
