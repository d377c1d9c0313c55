-- Counts by lot: a count line is what was found of one lot of a product at the location ('' for
-- units without a lot), so that a product kept by lot is counted and corrected lot by lot.
ALTER TABLE count_lines ADD COLUMN lot text NOT NULL DEFAULT '' CHECK (char_length(lot) <= 50);
ALTER TABLE count_lines DROP CONSTRAINT count_lines_pkey;
ALTER TABLE count_lines ADD PRIMARY KEY (tenant_id, count_id, product_id, lot);

-- Replenishment by lot: a task moves units of one lot ('' without one) from the reserve slot of
-- that lot to the face's slot of the same lot, and names the lot's expiry as it was when the task
-- was made (first expiry, first out chooses the reserve slot: src/floor/replenishment.ts).
ALTER TABLE replenishments
  ADD COLUMN lot text NOT NULL DEFAULT '' CHECK (char_length(lot) <= 50),
  ADD COLUMN expires_on date,
  ADD CONSTRAINT replenishments_expiry_with_lot CHECK (expires_on IS NULL OR lot <> '');
