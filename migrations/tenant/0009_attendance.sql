-- Time worked: one record from clock-in to clock-out, at most one open per person.
CREATE TABLE attendance_records (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    clock_in TEXT NOT NULL,
    clock_out TEXT,
    -- The paired device a PIN clock-in came from; NULL when the person was signed in.
    device_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX attendance_records_open ON attendance_records (user_id)
    WHERE clock_out IS NULL;
CREATE INDEX attendance_records_clock_in ON attendance_records (clock_in);
CREATE INDEX attendance_records_user ON attendance_records (user_id, clock_in);

-- Breaks within a record, at most one open at a time.
CREATE TABLE attendance_breaks (
    id TEXT PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES attendance_records(id),
    started_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE UNIQUE INDEX attendance_breaks_open ON attendance_breaks (record_id)
    WHERE ended_at IS NULL;
CREATE INDEX attendance_breaks_record ON attendance_breaks (record_id, started_at);
