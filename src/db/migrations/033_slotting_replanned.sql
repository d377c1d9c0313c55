-- Slotting proposals replay the period's orders planned into carts again for each placement:
-- `basis` keeps what was replayed ({orders, maxOrders, maxItems}: the orders, and the carts they
-- were planned into), `saving_by_moves` the walk with fewer moves ([{moves, walking}], fewest
-- first, the last the proposal itself). A proposal kept before has neither: its replay walked the
-- waves as they were made, the same orders on the same carts.
ALTER TABLE slotting_proposals
  ADD COLUMN basis jsonb,
  ADD COLUMN saving_by_moves jsonb NOT NULL DEFAULT '[]';
