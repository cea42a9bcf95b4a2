-- Tenants of this server, the email -> tenant login index, API keys and server secrets.
CREATE TABLE tenants (
    id          TEXT PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE login_index (
    email       TEXT NOT NULL COLLATE NOCASE,
    tenant_id   TEXT NOT NULL REFERENCES tenants(id),
    user_id     TEXT NOT NULL,
    PRIMARY KEY (email, tenant_id)
);

-- Keys are looked up by the SHA-256 of the whole key; the key itself is never stored.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    tenant_id    TEXT NOT NULL REFERENCES tenants(id),
    name         TEXT NOT NULL,
    role         TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    key_prefix   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    revoked_at   TEXT
);

CREATE TABLE server_secrets (
    name   TEXT PRIMARY KEY,
    value  BLOB NOT NULL
);
