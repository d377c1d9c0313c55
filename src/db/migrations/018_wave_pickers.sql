-- The console's picker of a wave (null for waves made through the warehouse API or by a
-- supervisor); a picker has at most one PICKING wave.
ALTER TABLE waves
  ADD COLUMN picker_id uuid,
  ADD CONSTRAINT waves_picker FOREIGN KEY (tenant_id, picker_id) REFERENCES staff_users (tenant_id, id);
CREATE UNIQUE INDEX waves_one_picking_per_picker ON waves (tenant_id, picker_id) WHERE status = 'PICKING' AND picker_id IS NOT NULL;
