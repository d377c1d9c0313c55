-- Warehouse users of the console (src/staff/), their server-side sessions and the sign-in failures
-- counted against them.

-- A user belongs to one tenant; its id alone names it in the operator API. The PIN is stored as a
-- scrypt hash with its parameters (src/staff/pins.ts), never in the clear.
CREATE TABLE staff_users (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  id uuid NOT NULL DEFAULT uuid_v7(),
  username text NOT NULL CHECK (username ~ '^[a-z0-9._-]{1,64}$'),
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('picker', 'packer', 'supervisor')),
  pin_hash text NOT NULL,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id),
  UNIQUE (tenant_id, id)
);
-- One active user per username: a disabled user's name is free again, so a PIN or role change is
-- "disable, create again" under the same name, and the disabled row stays for the record.
CREATE UNIQUE INDEX staff_users_active_username ON staff_users (tenant_id, username) WHERE disabled_at IS NULL;

-- A session is the SHA-256 of the random token in the cookie; the token itself is never stored.
-- It ends at idle_expires_at (moved on while in use) or expires_at, whichever comes first.
CREATE TABLE staff_sessions (
  token_hash text NOT NULL PRIMARY KEY,
  tenant_id uuid NOT NULL,
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  idle_expires_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  FOREIGN KEY (tenant_id, user_id) REFERENCES staff_users (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX staff_sessions_by_user ON staff_sessions (user_id);
-- The purge of expired sessions at sign-in.
CREATE INDEX staff_sessions_by_expiry ON staff_sessions (expires_at);

-- Failed sign-ins per key (a warehouse and username, or a client address) in a fixed window; in the
-- database so the limits hold across instances.
CREATE TABLE staff_sign_in_failures (
  key text NOT NULL PRIMARY KEY,
  failures integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);
CREATE INDEX staff_sign_in_failures_by_end ON staff_sign_in_failures (window_ends_at);
