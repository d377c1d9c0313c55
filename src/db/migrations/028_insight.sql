-- The supervisor's insight (src/insight/) counts a period's orders by when they were picked and
-- dispatched, PACKED status events, and recorded picks: each read finds its period through one of
-- these. Partial, so rows that never get the timestamp cost nothing.
CREATE INDEX orders_by_picked ON orders (tenant_id, picked_at) WHERE picked_at IS NOT NULL;
CREATE INDEX orders_by_dispatched ON orders (tenant_id, dispatched_at) WHERE dispatched_at IS NOT NULL;
CREATE INDEX events_packed ON events (tenant_id, occurred_at) WHERE event = 'order.status_changed' AND data->>'status' = 'PACKED';
-- With what the reads take of a pick, so that they read the index alone (once vacuumed).
CREATE INDEX wave_lines_by_picked ON wave_lines (tenant_id, picked_at) INCLUDE (wave_id, location_code, quantity, picked_quantity, reason)
  WHERE picked_at IS NOT NULL;
