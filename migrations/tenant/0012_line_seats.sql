-- The seat a line was ordered for, so a table's bill can split by seat. NULL is
-- a line for the table (shared, or not seated).
ALTER TABLE order_items ADD COLUMN seat INTEGER;
