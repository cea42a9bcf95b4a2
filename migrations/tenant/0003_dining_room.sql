-- The dining room: seating sessions at tables, the waitlist, reservations and
-- their time-slot rules, and the settings that govern them.
ALTER TABLE settings ADD COLUMN reservation_grace_minutes INTEGER NOT NULL DEFAULT 15;
ALTER TABLE settings ADD COLUMN auto_confirm_reservations INTEGER NOT NULL DEFAULT 0;
-- A table shows as reserved this many minutes before a reservation assigned to it.
ALTER TABLE settings ADD COLUMN table_hold_minutes INTEGER NOT NULL DEFAULT 60;

CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    status           TEXT NOT NULL,
    party_size       INTEGER NOT NULL,
    queue_ticket_id  TEXT,
    reservation_id   TEXT,
    opened_by        TEXT,
    opened_at        TEXT NOT NULL,
    closed_at        TEXT
);
CREATE INDEX sessions_status ON sessions(status, opened_at);

-- Which tables a session sits at; released rows stay as history for turn times.
CREATE TABLE session_tables (
    session_id   TEXT NOT NULL REFERENCES sessions(id),
    table_id     TEXT NOT NULL REFERENCES tables(id),
    position     INTEGER NOT NULL,
    seated_at    TEXT NOT NULL,
    released_at  TEXT
);
-- A table holds at most one open session.
CREATE UNIQUE INDEX session_tables_occupied ON session_tables(table_id) WHERE released_at IS NULL;
CREATE INDEX session_tables_session ON session_tables(session_id);

CREATE TABLE queue_tickets (
    id                   TEXT PRIMARY KEY,
    number               TEXT NOT NULL,
    business_date        TEXT NOT NULL,
    sequence             INTEGER NOT NULL,
    -- Unguessable; lets the guest follow the ticket without logging in.
    token                TEXT NOT NULL UNIQUE,
    name                 TEXT NOT NULL,
    phone                TEXT,
    notes                TEXT,
    party_size           INTEGER NOT NULL,
    status               TEXT NOT NULL,
    quoted_wait_minutes  INTEGER,
    reservation_id       TEXT,
    session_id           TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    UNIQUE (business_date, sequence)
);
CREATE INDEX queue_tickets_status ON queue_tickets(status, created_at);

CREATE TABLE reservations (
    id               TEXT PRIMARY KEY,
    status           TEXT NOT NULL,
    name             TEXT NOT NULL,
    phone            TEXT NOT NULL,
    email            TEXT,
    party_size       INTEGER NOT NULL,
    starts_at        TEXT NOT NULL,
    -- starts_at plus the day's default stay, for capacity checks.
    ends_at          TEXT NOT NULL,
    notes            TEXT,
    -- JSON array of assigned table ids.
    table_ids        TEXT NOT NULL DEFAULT '[]',
    source           TEXT NOT NULL,
    cancelled_by     TEXT,
    cancel_reason    TEXT,
    queue_ticket_id  TEXT,
    session_id       TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX reservations_starts ON reservations(starts_at);
CREATE INDEX reservations_status ON reservations(status, starts_at);

-- Booking rules per weekday (0 = Monday); a weekday without a row is closed.
CREATE TABLE reservation_time_slots (
    weekday              INTEGER PRIMARY KEY CHECK (weekday BETWEEN 0 AND 6),
    -- JSON array of {"start": "HH:MM", "end": "HH:MM"} in the tenant's local time.
    windows              TEXT NOT NULL,
    slot_minutes         INTEGER NOT NULL,
    max_covers_per_slot  INTEGER NOT NULL,
    max_party_size       INTEGER NOT NULL,
    stay_minutes         INTEGER NOT NULL
);

ALTER TABLE orders ADD COLUMN session_id TEXT REFERENCES sessions(id);
CREATE INDEX orders_session ON orders(session_id);
