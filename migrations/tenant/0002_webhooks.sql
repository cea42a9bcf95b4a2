-- Outbound webhooks: the tenant's endpoint, one delivery per outbox event and a log
-- of every attempt.

-- The single endpoint. The secret is kept readable because every request is signed
-- with it; the file is the tenant's own and the API shows it only once.
CREATE TABLE webhook_endpoint (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    url         TEXT NOT NULL,
    enabled     INTEGER NOT NULL,
    secret      TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

-- Delivery state of each event. A trigger creates the row in the transaction that
-- writes the event, so no committed event can lack one.
CREATE TABLE webhook_deliveries (
    event_id         TEXT PRIMARY KEY REFERENCES outbox(event_id),
    seq              INTEGER NOT NULL UNIQUE,
    -- pending | delivered | failed
    status           TEXT NOT NULL DEFAULT 'pending',
    attempts         INTEGER NOT NULL DEFAULT 0,
    -- The 24 h retry window starts at the first attempt of a round (a manual retry
    -- starts a new round), so events waiting for an endpoint are not used up.
    round_started_at TEXT,
    round_attempts   INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT NOT NULL,
    delivered_at     TEXT,
    last_error       TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at, seq);

-- Events written before this file existed wait for an endpoint like any other.
INSERT INTO webhook_deliveries (event_id, seq, next_attempt_at)
SELECT event_id, seq, created_at FROM outbox;

CREATE TRIGGER outbox_queues_delivery AFTER INSERT ON outbox
BEGIN
    INSERT INTO webhook_deliveries (event_id, seq, next_attempt_at)
    VALUES (NEW.event_id, NEW.seq, NEW.created_at);
END;

CREATE TABLE webhook_attempts (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id          TEXT NOT NULL REFERENCES webhook_deliveries(event_id),
    attempted_at      TEXT NOT NULL,
    -- HTTP status of the answer; NULL when none came (timeout, connection error).
    status_code       INTEGER,
    -- null on success; otherwise http_status | redirect | timeout | connection | other
    error_class       TEXT,
    duration_ms       INTEGER NOT NULL,
    response_snippet  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_event ON webhook_attempts(event_id, id);
