-- Retention (src/housekeeping/retention.ts) deletes settled delivery attempts and events past
-- PICKPORT_RETENTION_DAYS, oldest first, in small batches.
-- Settled attempts by age: pending rows (every new delivery) stay out of this index, so it costs
-- nothing when a write fans out deliveries.
CREATE INDEX webhook_deliveries_settled_by_age ON webhook_deliveries (created_at) WHERE status <> 'pending';
-- An event is kept while a delivery of it is still pending or dead-lettered (replay sends it again).
CREATE INDEX webhook_deliveries_unsettled_events ON webhook_deliveries (tenant_id, event_id)
  WHERE status IN ('pending', 'dead_letter');
-- Up to when the dead letters of a webhook and event kind were purged, so replay can say so.
CREATE TABLE webhook_dead_letters_purged (
  tenant_id uuid NOT NULL,
  webhook_id uuid NOT NULL,
  event text NOT NULL,
  purged_through timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, webhook_id, event),
  FOREIGN KEY (tenant_id, webhook_id) REFERENCES webhooks (tenant_id, id) ON DELETE CASCADE
);
