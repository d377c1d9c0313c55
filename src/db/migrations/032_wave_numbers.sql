-- A wave's number: short, unique in its warehouse (tenant), 1, 2, 3… in the order the waves are
-- made. People name waves by it (the console shows W-0012): two waves made in the same minute
-- have ids that begin alike, never the same number.
--
-- The number is set by the database as the wave is inserted, whoever inserts it: a row per tenant
-- in wave_numbers holds the last number given, and a trigger takes the next one. That row stays
-- locked until the inserting transaction ends, so two waves of one tenant made at once take their
-- numbers one after the other (the rest of a wave's transaction is short: its orders are locked
-- and checked before the wave is inserted); tenants never wait for each other. A wave whose
-- transaction rolls back gives its number back with it: numbers have no gaps.

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

-- Every insert takes the tenant's next number; a number given in the insert is replaced.
CREATE FUNCTION number_new_wave() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO wave_numbers AS counter (tenant_id, last_number) VALUES (NEW.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET last_number = counter.last_number + 1
  RETURNING last_number INTO NEW.number;
  RETURN NEW;
END
$$;
CREATE TRIGGER waves_numbered BEFORE INSERT ON waves FOR EACH ROW EXECUTE FUNCTION number_new_wave();
-- A wave keeps its number.
CREATE FUNCTION refuse_wave_renumbering() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE check_violation USING MESSAGE = format('wave %s: a wave keeps its number', OLD.id);
END
$$;
CREATE TRIGGER waves_number_fixed BEFORE UPDATE OF number ON waves
  FOR EACH ROW WHEN (OLD.number IS DISTINCT FROM NEW.number) EXECUTE FUNCTION refuse_wave_renumbering();
