-- Partner integrations: delivery platforms and payment gateways that push
-- messages to the tenant's /webhook/... URLs. The secret is sealed with the
-- box's key; only its last four characters are ever shown.
CREATE TABLE integrations (
    kind           TEXT NOT NULL CHECK (kind IN ('delivery', 'payment')),
    name           TEXT NOT NULL,
    enabled        INTEGER NOT NULL DEFAULT 1,
    secret_sealed  BLOB NOT NULL,
    secret_last4   TEXT NOT NULL,
    -- JSON object of the adapter's options.
    options        TEXT NOT NULL DEFAULT '{}',
    -- A delivery order that arrives placed is accepted (and fires) at once.
    auto_accept    INTEGER NOT NULL DEFAULT 1,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (kind, name)
);

-- Every message a partner sent: stored before it is answered, processed after.
-- A rejected one (unknown or disabled integration, bad signature) is kept with
-- its reason so the attempt is visible; it is never processed.
CREATE TABLE inbox_messages (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    name             TEXT NOT NULL,
    -- The platform's id of the event, when it sends one.
    event_id         TEXT,
    body_sha256      TEXT NOT NULL,
    -- JSON object of the headers kept (credentials are never kept).
    headers          TEXT NOT NULL,
    body             BLOB NOT NULL,
    remote_address   TEXT,
    received_at      TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('received', 'processed', 'duplicate', 'rejected', 'parked', 'failed')),
    -- Why it was rejected, parked or failed, or why the last attempt failed.
    reason           TEXT,
    duplicate_of     TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT,
    -- The order it touched, once processed.
    order_id         TEXT,
    processed_at     TEXT
);
CREATE UNIQUE INDEX inbox_messages_event ON inbox_messages(kind, name, event_id)
    WHERE event_id IS NOT NULL AND status NOT IN ('duplicate', 'rejected');
CREATE INDEX inbox_messages_body ON inbox_messages(kind, name, body_sha256, received_at);
CREATE INDEX inbox_messages_due ON inbox_messages(next_attempt_at) WHERE status = 'received';
CREATE INDEX inbox_messages_status ON inbox_messages(status, received_at);

-- A delivery platform's item ids or SKUs mapped to menu items.
CREATE TABLE partner_menu_map (
    name          TEXT NOT NULL,
    external_id   TEXT NOT NULL,
    menu_item_id  TEXT NOT NULL REFERENCES menu_items(id),
    PRIMARY KEY (name, external_id)
);

-- A partner's order keeps the platform's id and display number.
ALTER TABLE orders ADD COLUMN external_platform TEXT;
ALTER TABLE orders ADD COLUMN external_id TEXT;
ALTER TABLE orders ADD COLUMN external_display_id TEXT;
CREATE UNIQUE INDEX orders_external ON orders(external_platform, external_id)
    WHERE external_id IS NOT NULL;

-- Lines a partner sent that match no menu item are kept at the partner's price
-- as open items, which need a menu item to point at: this one, archived so it
-- shows on no menu.
INSERT INTO menu_categories (id, name, position, archived_at, created_at, updated_at)
VALUES ('00000000-0000-7000-8000-00000000000a', 'Partner open items', 0,
        '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z');
INSERT INTO menu_items (id, category_id, name, price, archived_at, created_at, updated_at)
VALUES ('00000000-0000-7000-8000-00000000000b', '00000000-0000-7000-8000-00000000000a',
        'Open item', 0, '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z');
-- Fees a platform charges the customer (delivery, service) are lines of this
-- item: billed, never sent to the kitchen.
INSERT INTO menu_items (id, category_id, name, price, archived_at, created_at, updated_at)
VALUES ('00000000-0000-7000-8000-00000000000c', '00000000-0000-7000-8000-00000000000a',
        'Partner fee', 0, '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z');
