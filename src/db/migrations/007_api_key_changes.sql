-- Instances cache API keys (src/tenancy/key-cache.ts); any change to a key, however it is made
-- (operator API, CLI or SQL by hand), tells every instance at commit to forget it.
CREATE FUNCTION api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pickport_api_keys', OLD.key_hash);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_key_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_key_changed();
