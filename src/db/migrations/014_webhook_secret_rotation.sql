-- Secret rotation: the secret a rotation replaced keeps signing (next to the new one) until
-- previous_secret_expires_at, so receivers can switch without missing a delivery. Encrypted like
-- secret_ciphertext, under the same binding to the webhook.
ALTER TABLE webhooks
  ADD COLUMN previous_secret_ciphertext text,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD CONSTRAINT webhooks_previous_secret_expires
    CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL));
