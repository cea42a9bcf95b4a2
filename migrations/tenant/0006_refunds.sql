-- Refunds are payments with a negative amount (and, when a cancellation gives a
-- tip back, a negative tip), with the reason they were made. The units of each
-- line a refund gave back are kept, so no unit is refunded twice.
ALTER TABLE payments ADD COLUMN reason TEXT;
ALTER TABLE orders ADD COLUMN refunded_amount INTEGER NOT NULL DEFAULT 0;

CREATE TABLE refund_lines (
    payment_id  TEXT NOT NULL REFERENCES payments(id),
    line_id     TEXT NOT NULL REFERENCES order_items(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    amount      INTEGER NOT NULL,
    PRIMARY KEY (payment_id, line_id)
);
CREATE INDEX refund_lines_line ON refund_lines(line_id);
