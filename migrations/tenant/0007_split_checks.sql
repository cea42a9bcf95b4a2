-- An order split into checks: each check is an order of its own, linked to the
-- order it came from and numbered within it; the order counts its checks. A
-- check's totals are its share of the order's, fixed when it was split.
ALTER TABLE orders ADD COLUMN parent_order_id TEXT REFERENCES orders(id);
ALTER TABLE orders ADD COLUMN check_number INTEGER;
ALTER TABLE orders ADD COLUMN check_count INTEGER NOT NULL DEFAULT 0;
CREATE INDEX orders_parent ON orders(parent_order_id) WHERE parent_order_id IS NOT NULL;
