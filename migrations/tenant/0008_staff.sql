-- Staff details beyond login: contact, pay, the POS PIN, a forced password change,
-- and the generation that ends every token issued before it.
ALTER TABLE users ADD COLUMN phone TEXT;
-- Minor units of the tenant's currency.
ALTER TABLE users ADD COLUMN hourly_wage INTEGER;
-- HMAC-SHA256 of the PIN under the tenant's PIN key (kept in the registry, not in
-- this file); the PIN itself is never stored.
ALTER TABLE users ADD COLUMN pin_digest TEXT;
ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;
-- Every token carries the generation it was issued under; raising it (deactivation,
-- a password reset or change) refuses all older tokens at once.
ALTER TABLE users ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX users_pin_digest ON users (pin_digest) WHERE pin_digest IS NOT NULL;
