-- idempotency_keys now holds stored answers only: an answer is written by the commit of its write
-- (src/http/write.ts), so no reservation row, lease or state is needed. No foreign keys: rows are a
-- 24-hour record written on the path of every idempotent write, and tenants and keys are never
-- deleted (a key is revoked, its row stays).
DELETE FROM idempotency_keys WHERE state <> 'done';
ALTER TABLE idempotency_keys
  DROP CONSTRAINT idempotency_keys_tenant_id_fkey,
  DROP CONSTRAINT idempotency_keys_api_key_id_fkey,
  DROP COLUMN state,
  DROP COLUMN locked_until,
  ALTER COLUMN status_code SET NOT NULL,
  ALTER COLUMN headers SET NOT NULL,
  ALTER COLUMN body SET NOT NULL;
