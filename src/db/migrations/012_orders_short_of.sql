-- The products an order is short of: the productExternalId of each INSUFFICIENT_STOCK issue, as a
-- jsonb array of strings. Derived from issues by the database, so it can never disagree with them.
-- A re-check classifies every order line holding a product as queued for it or not; testing this
-- small array (`short_of ? externalId`) costs about what reading the line does, where matching the
-- issues document for each line cost several times more.
ALTER TABLE orders ADD COLUMN short_of jsonb
  GENERATED ALWAYS AS (jsonb_path_query_array(issues, '$[*] ? (@.type == "INSUFFICIENT_STOCK").productExternalId')) STORED;

-- PENDING_VALIDATION orders are few; a re-check looks for those with an issue on a changed product.
CREATE INDEX orders_pending_validation ON orders (tenant_id) WHERE status = 'PENDING_VALIDATION';
