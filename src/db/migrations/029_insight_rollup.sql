-- The insight's rollup (src/insight/rollup.ts): counts of closed hours kept per tenant, so that a
-- read over weeks sums a few hundred rows instead of reading millions. The housekeeping loop
-- writes them; nothing on the order or picking paths does. Each tenant's hours before
-- `rolled_through` are in the tables below, except the picks and walks of the waves listed in
-- insight_open_waves, which the reads still count from the rows.
CREATE TABLE insight_rollups (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id),
  rolled_through timestamptz NOT NULL
);

-- Per UTC hour: orders received, picked, dispatched, moved to PACKED; COMPLETED waves made in the
-- hour with their orders and walks.
CREATE TABLE insight_hours (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  hour timestamptz NOT NULL,
  received integer NOT NULL DEFAULT 0,
  picked integer NOT NULL DEFAULT 0,
  packed integer NOT NULL DEFAULT 0,
  dispatched integer NOT NULL DEFAULT 0,
  waves integer NOT NULL DEFAULT 0,
  orders integer NOT NULL DEFAULT 0,
  distance numeric NOT NULL DEFAULT 0,
  s_shape numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, hour)
);

-- Picks recorded per UTC hour in waves of a picker (a row only for an hour with picks).
CREATE TABLE insight_picker_hours (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  hour timestamptz NOT NULL,
  picker_id uuid NOT NULL,
  lines integer NOT NULL,
  units numeric NOT NULL,
  PRIMARY KEY (tenant_id, hour, picker_id)
);

-- The same per UTC day, with the hours of the day that have a row above: a 92-day chart by the day
-- sums 20 pickers' 92 rows each instead of 2,208.
CREATE TABLE insight_picker_days (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  day timestamptz NOT NULL,
  picker_id uuid NOT NULL,
  lines integer NOT NULL,
  units numeric NOT NULL,
  hours integer NOT NULL,
  PRIMARY KEY (tenant_id, day, picker_id)
);

-- Short picks per UTC hour and reason (NULL: none given).
CREATE TABLE insight_short_picks (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  hour timestamptz NOT NULL,
  reason text,
  picks integer NOT NULL,
  CONSTRAINT insight_short_picks_key UNIQUE NULLS NOT DISTINCT (tenant_id, hour, reason)
);

-- Picks per UTC day and location (NULL: a line without a placed location): per hour, a floor of
-- a few hundred locations would make a 92-day heat map sum close to a million rows.
CREATE TABLE insight_location_days (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  day timestamptz NOT NULL,
  location_code text,
  picks integer NOT NULL,
  units numeric NOT NULL,
  CONSTRAINT insight_location_days_key UNIQUE NULLS NOT DISTINCT (tenant_id, day, location_code)
);

-- Waves still PICKING when an hour holding their creation or a pick of theirs was rolled up: their
-- picks and walk may still change, so they are left out until they close.
CREATE TABLE insight_open_waves (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  wave_id uuid NOT NULL,
  PRIMARY KEY (tenant_id, wave_id)
);
