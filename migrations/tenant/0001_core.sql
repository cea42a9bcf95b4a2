-- Everything of one tenant: settings, staff, floor plan, menu, orders, payments,
-- the event outbox and idempotency records. Money is integer minor units.
CREATE TABLE settings (
    id                       INTEGER PRIMARY KEY CHECK (id = 1),
    tenant_id                TEXT NOT NULL,
    business_name            TEXT NOT NULL,
    currency                 TEXT NOT NULL DEFAULT 'USD',
    timezone                 TEXT NOT NULL DEFAULT 'UTC',
    -- Orders placed before this local hour belong to the previous business day.
    business_day_start_hour  INTEGER NOT NULL DEFAULT 4
);

CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name           TEXT NOT NULL,
    role           TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    active         INTEGER NOT NULL DEFAULT 1,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);

CREATE TABLE floors (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    position    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE tables (
    id          TEXT PRIMARY KEY,
    floor_id    TEXT NOT NULL REFERENCES floors(id),
    name        TEXT NOT NULL UNIQUE,
    seats       INTEGER NOT NULL,
    shape       TEXT NOT NULL DEFAULT 'square',
    x           REAL NOT NULL DEFAULT 0,
    y           REAL NOT NULL DEFAULT 0,
    width       REAL NOT NULL DEFAULT 1,
    height      REAL NOT NULL DEFAULT 1,
    rotation    REAL NOT NULL DEFAULT 0,
    active      INTEGER NOT NULL DEFAULT 1,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE menu_categories (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    position     INTEGER NOT NULL DEFAULT 0,
    archived_at  TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX menu_categories_live_name ON menu_categories(name) WHERE archived_at IS NULL;

CREATE TABLE menu_items (
    id               TEXT PRIMARY KEY,
    category_id      TEXT NOT NULL REFERENCES menu_categories(id),
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    price            INTEGER NOT NULL,
    -- Thousandths of a percent: 7.5 % is 7500.
    tax_rate         INTEGER NOT NULL DEFAULT 0,
    available        INTEGER NOT NULL DEFAULT 1,
    kitchen_station  TEXT,
    -- JSON array of {name, price} with price in minor units.
    modifiers        TEXT NOT NULL DEFAULT '[]',
    archived_at      TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX menu_items_category ON menu_items(category_id);

CREATE TABLE order_number_sequences (
    business_date  TEXT PRIMARY KEY,
    last_number    INTEGER NOT NULL
);

CREATE TABLE orders (
    id               TEXT PRIMARY KEY,
    order_number     TEXT NOT NULL UNIQUE,
    business_date    TEXT NOT NULL,
    status           TEXT NOT NULL,
    order_type       TEXT NOT NULL,
    table_id         TEXT REFERENCES tables(id),
    table_name       TEXT,
    customer_name    TEXT,
    customer_phone   TEXT,
    notes            TEXT,
    subtotal         INTEGER NOT NULL DEFAULT 0,
    tax_amount       INTEGER NOT NULL DEFAULT 0,
    discount_amount  INTEGER NOT NULL DEFAULT 0,
    total_amount     INTEGER NOT NULL DEFAULT 0,
    paid_amount      INTEGER NOT NULL DEFAULT 0,
    tip_amount       INTEGER NOT NULL DEFAULT 0,
    cancel_reason    TEXT,
    version          INTEGER NOT NULL DEFAULT 1,
    created_by       TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    closed_at        TEXT
);
CREATE INDEX orders_created ON orders(created_at, id);
CREATE INDEX orders_status ON orders(status);
CREATE INDEX orders_table ON orders(table_id);

CREATE TABLE order_items (
    id               TEXT PRIMARY KEY,
    order_id         TEXT NOT NULL REFERENCES orders(id),
    menu_item_id     TEXT NOT NULL REFERENCES menu_items(id),
    name             TEXT NOT NULL,
    -- Base price plus chosen modifiers, captured when the line was added.
    unit_price       INTEGER NOT NULL,
    quantity         INTEGER NOT NULL,
    modifiers        TEXT NOT NULL DEFAULT '[]',
    notes            TEXT,
    tax_rate         INTEGER NOT NULL,
    kitchen_station  TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX order_items_order ON order_items(order_id);

CREATE TABLE payments (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders(id),
    method      TEXT NOT NULL,
    -- amount is what was applied to the order; tendered - amount is change given.
    amount      INTEGER NOT NULL,
    tendered    INTEGER NOT NULL,
    change_due  INTEGER NOT NULL DEFAULT 0,
    tip         INTEGER NOT NULL DEFAULT 0,
    reference   TEXT,
    created_by  TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX payments_order ON payments(order_id);

-- The transactional outbox: one row per event, written in the transaction of the change.
CREATE TABLE outbox (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id    TEXT NOT NULL UNIQUE,
    event       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    -- The exact envelope bytes that are delivered and signed.
    body        TEXT NOT NULL
);

CREATE TABLE idempotency_keys (
    principal    TEXT NOT NULL,
    key          TEXT NOT NULL,
    route        TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    response     TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (principal, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
