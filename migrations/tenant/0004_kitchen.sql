-- The kitchen: stations, the tickets an order sends them once it is confirmed, and
-- which events the webhook endpoint takes.

CREATE TABLE kitchen_stations (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE COLLATE NOCASE,
    -- prep cooks its own tickets; expo sees every station's
    kind                TEXT NOT NULL DEFAULT 'prep' CHECK (kind IN ('prep', 'expo')),
    warn_after_minutes  INTEGER NOT NULL DEFAULT 8,
    late_after_minutes  INTEGER NOT NULL DEFAULT 15,
    active              INTEGER NOT NULL DEFAULT 1,
    position            INTEGER NOT NULL DEFAULT 0,
    -- Where a line goes when its item names no station that exists.
    is_default          INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE UNIQUE INDEX kitchen_stations_one_default ON kitchen_stations(is_default) WHERE is_default = 1;

-- Each distinct station named on the menu becomes a station, and one default.
INSERT INTO kitchen_stations (id, name, is_default, created_at, updated_at)
SELECT lower(printf('%s-%s-4%s-8%s-%s', hex(randomblob(4)), hex(randomblob(2)), substr(hex(randomblob(2)), 2),
           substr(hex(randomblob(2)), 2), hex(randomblob(6)))),
       name, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM (SELECT DISTINCT trim(kitchen_station) COLLATE NOCASE AS name FROM menu_items
      WHERE kitchen_station IS NOT NULL AND trim(kitchen_station) <> '' AND lower(trim(kitchen_station)) <> 'kitchen');
INSERT INTO kitchen_stations (id, name, is_default, created_at, updated_at)
VALUES (lower(printf('%s-%s-4%s-8%s-%s', hex(randomblob(4)), hex(randomblob(2)), substr(hex(randomblob(2)), 2),
           substr(hex(randomblob(2)), 2), hex(randomblob(6)))),
       'Kitchen', 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

CREATE TABLE kitchen_tickets (
    id               TEXT PRIMARY KEY,
    order_id         TEXT NOT NULL REFERENCES orders(id),
    station_id       TEXT NOT NULL REFERENCES kitchen_stations(id),
    -- open | done | cancelled
    status           TEXT NOT NULL DEFAULT 'open',
    -- Lines added to an order already sent to the kitchen.
    addition         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    started_at       TEXT,
    bumped_at        TEXT,
    acknowledged_at  TEXT,
    updated_at       TEXT NOT NULL,
    -- Up by one with every change, so a screen can tell a late view from a new one.
    version          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX kitchen_tickets_board ON kitchen_tickets(status, station_id, created_at);
CREATE INDEX kitchen_tickets_order ON kitchen_tickets(order_id);

-- A line as the kitchen got it. Lines are not referenced: a removed line stays on
-- its ticket, voided.
CREATE TABLE kitchen_ticket_items (
    ticket_id        TEXT NOT NULL REFERENCES kitchen_tickets(id),
    line_id          TEXT NOT NULL,
    name             TEXT NOT NULL,
    quantity         INTEGER NOT NULL,
    voided_quantity  INTEGER NOT NULL DEFAULT 0,
    modifiers        TEXT NOT NULL DEFAULT '[]',
    notes            TEXT,
    course           INTEGER NOT NULL DEFAULT 1,
    -- queued | cooking | ready
    state            TEXT NOT NULL DEFAULT 'queued',
    position         INTEGER NOT NULL,
    PRIMARY KEY (ticket_id, line_id)
);
CREATE INDEX kitchen_ticket_items_line ON kitchen_ticket_items(line_id);

-- Courses: a dine-in order may hold its later courses off the kitchen's board
-- until the floor fires them; NULL fires every course.
ALTER TABLE order_items ADD COLUMN course INTEGER NOT NULL DEFAULT 1;
ALTER TABLE orders ADD COLUMN fired_course INTEGER;

-- An order whose tickets are all bumped becomes ready by itself.
ALTER TABLE settings ADD COLUMN kitchen_auto_ready INTEGER NOT NULL DEFAULT 1;

-- The events the endpoint takes; NULL is the contract's catalogue. A test event
-- always goes.
ALTER TABLE webhook_endpoint ADD COLUMN events TEXT;

DROP TRIGGER outbox_queues_delivery;
CREATE TRIGGER outbox_queues_delivery AFTER INSERT ON outbox
WHEN NEW.event = 'webhook.test' OR NEW.event IN (
    SELECT value FROM json_each(COALESCE((SELECT events FROM webhook_endpoint WHERE id = 1),
        '["order.created","order.updated","order.completed","order.cancelled","session.created","session.closed",' ||
        '"reservation.created","reservation.confirmed","reservation.cancelled","reservation.checked_in",' ||
        '"reservation.completed","reservation.no_show"]')))
BEGIN
    INSERT INTO webhook_deliveries (event_id, seq, next_attempt_at)
    VALUES (NEW.event_id, NEW.seq, NEW.created_at);
END;
