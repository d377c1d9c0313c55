-- Slotting proposals: moves of products between the places they stand at, with the walking of a
-- period's waves replayed before and after. `moves` holds, for each, the product's id and the
-- updated_at it had when proposed, so that applying skips a product changed since. Applying sets
-- applied_at and keeps what it did in `applied`, so that applying again changes nothing.
CREATE TABLE slotting_proposals (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT uuid_v7(),
  period_from timestamptz NOT NULL,
  period_to timestamptz NOT NULL,
  waves integer NOT NULL,
  moves jsonb NOT NULL,
  walking_before numeric NOT NULL,
  walking_after numeric NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  applied_at timestamptz,
  applied jsonb,
  PRIMARY KEY (tenant_id, id)
);
