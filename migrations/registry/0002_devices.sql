-- Pairing devices (POS terminals, kitchen screens, phones). A setup key is a short
-- single-use code, stored as its SHA-256; redeeming it creates an API key and the
-- device that holds it, whose id is the key's id.
CREATE TABLE setup_keys (
    id           TEXT PRIMARY KEY,
    tenant_id    TEXT NOT NULL REFERENCES tenants(id),
    name         TEXT NOT NULL,
    role         TEXT NOT NULL,
    code_hash    TEXT NOT NULL UNIQUE,
    created_by   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    used_at      TEXT,
    device_id    TEXT
);
CREATE INDEX setup_keys_tenant ON setup_keys (tenant_id, created_at);

CREATE TABLE devices (
    id                 TEXT PRIMARY KEY REFERENCES api_keys(id),
    tenant_id          TEXT NOT NULL REFERENCES tenants(id),
    name               TEXT NOT NULL,
    role               TEXT NOT NULL,
    setup_key_name     TEXT NOT NULL,
    paired_at          TEXT NOT NULL,
    paired_address     TEXT,
    last_seen_at       TEXT,
    last_seen_address  TEXT,
    revoked_at         TEXT
);
CREATE INDEX devices_tenant ON devices (tenant_id, paired_at);
