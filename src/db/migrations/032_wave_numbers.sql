-- A wave's number: short, unique in its warehouse (tenant), 1, 2, 3… in the order the waves are
-- numbered. People name waves by it (the console shows W-0012): two waves made in the same minute
-- have ids that begin alike, never the same number.
--
-- A row per tenant in wave_numbers holds the last number given. The service takes a wave's number
-- by a statement of its own, before the wave's transaction (so that two waves made at once never
-- wait for each other's commit on that row), and inserts the wave with it. A number taken for a
-- wave that is not made after all is not given again: numbers may skip one.

CREATE TABLE wave_numbers (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  last_number integer NOT NULL CHECK (last_number >= 1)
);

ALTER TABLE waves ADD COLUMN number integer;

-- The waves made so far, numbered per tenant in the order they were made.
UPDATE waves AS w SET number = ranked.n
FROM (SELECT tenant_id, id, row_number() OVER (PARTITION BY tenant_id ORDER BY created_at, id) AS n FROM waves) AS ranked
WHERE w.tenant_id = ranked.tenant_id AND w.id = ranked.id;
INSERT INTO wave_numbers (tenant_id, last_number) SELECT tenant_id, max(number) FROM waves GROUP BY tenant_id;

ALTER TABLE waves ALTER COLUMN number SET NOT NULL, ADD CONSTRAINT waves_number_positive CHECK (number >= 1);
CREATE UNIQUE INDEX waves_by_number ON waves (tenant_id, number);

-- A wave keeps its number.
CREATE FUNCTION refuse_wave_renumbering() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE check_violation USING MESSAGE = format('wave %s: a wave keeps its number', OLD.id);
END
$$;
CREATE TRIGGER waves_number_fixed BEFORE UPDATE OF number ON waves
  FOR EACH ROW WHEN (OLD.number IS DISTINCT FROM NEW.number) EXECUTE FUNCTION refuse_wave_renumbering();
