-- Hours after which a record still open is flagged for a manager's review
-- rather than closed by itself.
ALTER TABLE settings ADD COLUMN attendance_review_hours INTEGER NOT NULL DEFAULT 14;
