-- Webhook subscriptions of a tenant; the secret is AES-256-GCM ciphertext (never the plain text).
CREATE TABLE webhooks (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  secret_ciphertext text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

-- One row per delivery attempt. A pending row is due at next_attempt_at; a worker that claims it
-- moves next_attempt_at to the end of its lease and stamps lease_id, so a row whose worker died
-- becomes due again by itself. A failed attempt stays as history and the retry is a new row.
-- status: pending | delivered | failed (retry scheduled) | dead_letter | replayed (dead letter re-queued).
-- event_id is not a foreign key: test sends carry a synthetic event that is never stored.
CREATE TABLE webhook_deliveries (
  tenant_id uuid NOT NULL,
  id uuid NOT NULL,
  webhook_id uuid NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  event_id uuid NOT NULL,
  event text NOT NULL,
  attempt integer NOT NULL DEFAULT 1,
  status text NOT NULL DEFAULT 'pending',
  test boolean NOT NULL DEFAULT false,
  next_attempt_at timestamptz,
  lease_id uuid,
  status_code integer,
  duration_ms integer,
  error text,
  response_body text,
  attempted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, webhook_id) REFERENCES webhooks (tenant_id, id) ON DELETE CASCADE
);
-- Claiming: the due pending rows of every tenant, oldest first.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- History and dead-letter lists of one webhook, newest first.
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (tenant_id, webhook_id, seq);
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (tenant_id, webhook_id, created_at) WHERE status = 'dead_letter';
