CREATE TABLE tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text,
  -- SHA-256 of the whole key: keys carry 238 bits of entropy, so a fast hash is enough.
  key_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  permissions text[] NOT NULL,
  rate_limit_per_minute integer NOT NULL DEFAULT 60,
  daily_limit integer NOT NULL DEFAULT 10000,
  allowed_ips text[],
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);
