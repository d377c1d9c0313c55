-- Responses of idempotent writes (X-Idempotency-Key), scoped to the API key that sent them.
-- A row is first a reservation (in_progress, leased until locked_until), then the stored answer
-- (done), written in the same transaction as the write it describes.
CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  api_key_id uuid NOT NULL REFERENCES api_keys (id),
  idempotency_key uuid NOT NULL,
  -- SHA-256 of method, path and canonical body.
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'done')),
  -- The request that holds the reservation, or whose answer is stored (its body carries this id).
  request_id uuid NOT NULL,
  locked_until timestamptz NOT NULL,
  status_code integer,
  headers jsonb,
  body text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, api_key_id, idempotency_key)
);
-- The purge of expired keys walks this index.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
