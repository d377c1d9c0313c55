-- Who holds a replenishment task while it is IN_PROGRESS: the console user who took it on the
-- replenishment screen (src/floor/replenishment.ts). Set exactly while the task is IN_PROGRESS;
-- done_by keeps the username of whoever completed or cancelled it.
ALTER TABLE replenishments
  ADD COLUMN taken_by uuid,
  ADD CONSTRAINT replenishments_taken_by FOREIGN KEY (tenant_id, taken_by) REFERENCES staff_users (tenant_id, id),
  ADD CONSTRAINT replenishments_taken_while_in_progress CHECK ((status = 'IN_PROGRESS') = (taken_by IS NOT NULL));
-- One task in hand per user: the screen carries one product at a time.
CREATE UNIQUE INDEX replenishments_one_in_hand ON replenishments (tenant_id, taken_by) WHERE status = 'IN_PROGRESS';
