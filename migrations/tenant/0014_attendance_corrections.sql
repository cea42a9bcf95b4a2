-- A staff member's request to change the punches of one of their records; the
-- record changes only when a manager approves it.
CREATE TABLE attendance_corrections (
    id TEXT PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES attendance_records(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    clock_in TEXT,
    clock_out TEXT,
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    decided_by TEXT,
    decided_at TEXT,
    note TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX attendance_corrections_status ON attendance_corrections (status, id);
CREATE INDEX attendance_corrections_user ON attendance_corrections (user_id, id);

-- Every change to a record's punches after it was opened: before and after,
-- who (an actor such as `user:<id>`), when, why, and the correction it came from.
CREATE TABLE attendance_history (
    id TEXT PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES attendance_records(id),
    change TEXT NOT NULL CHECK (change IN ('clock_out', 'correction', 'edit')),
    clock_in_before TEXT NOT NULL,
    clock_in_after TEXT NOT NULL,
    clock_out_before TEXT,
    clock_out_after TEXT,
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    reason TEXT,
    correction_id TEXT REFERENCES attendance_corrections(id)
);
CREATE INDEX attendance_history_record ON attendance_history (record_id, id);

-- Records that started before `locked_until` are closed for payroll. One row at most.
CREATE TABLE attendance_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    locked_until TEXT NOT NULL,
    locked_by TEXT NOT NULL,
    locked_at TEXT NOT NULL
);
