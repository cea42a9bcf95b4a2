-- The schedule: who works when. A shift without a person is an open shift for a
-- role or a station. Staff see a shift once it is published; a published shift
-- edited since is `changed` until published again.
CREATE TABLE shifts (
    id TEXT PRIMARY KEY,
    user_id TEXT REFERENCES users(id),
    role TEXT,
    station_id TEXT REFERENCES kitchen_stations(id),
    starts_at TEXT NOT NULL,
    ends_at TEXT NOT NULL,
    break_minutes INTEGER NOT NULL DEFAULT 0,
    notes TEXT,
    status TEXT NOT NULL CHECK (status IN ('draft', 'published', 'changed')),
    published_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK (ends_at > starts_at)
);
CREATE INDEX shifts_starts_at ON shifts (starts_at, id);
CREATE INDEX shifts_user ON shifts (user_id, starts_at);
