-- Discount campaigns: a kind, its rules (JSON, as the API takes them, amounts in
-- minor units), the conditions of when it applies, and whether it stacks. A
-- campaign that requires a coupon applies only to orders holding one of its codes.
CREATE TABLE campaigns (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('percent_off', 'amount_off', 'bogo', 'fixed_price_bundle')),
    status           TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused')),
    rules            TEXT NOT NULL,
    stackable        INTEGER NOT NULL DEFAULT 0,
    requires_coupon  INTEGER NOT NULL DEFAULT 0,
    -- Completed orders it discounted.
    uses             INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
CREATE INDEX campaigns_status ON campaigns(status);

-- Codes are stored upper case; a use counts when an order holding it completes.
CREATE TABLE coupons (
    code           TEXT PRIMARY KEY,
    campaign_id    TEXT NOT NULL REFERENCES campaigns(id),
    batch_id       TEXT NOT NULL,
    uses_per_code  INTEGER NOT NULL CHECK (uses_per_code > 0),
    uses           INTEGER NOT NULL DEFAULT 0,
    expires_at     TEXT,
    created_at     TEXT NOT NULL
);
CREATE INDEX coupons_campaign ON coupons(campaign_id, batch_id);

CREATE TABLE order_coupons (
    order_id  TEXT NOT NULL REFERENCES orders(id),
    code      TEXT NOT NULL REFERENCES coupons(code),
    added_at  TEXT NOT NULL,
    PRIMARY KEY (order_id, code)
);
CREATE INDEX order_coupons_code ON order_coupons(code);

-- The discounts an order carries, as last priced: which campaign (and code)
-- gave how much, and to which lines (JSON [{line_id, amount}], minor units).
CREATE TABLE order_discounts (
    order_id     TEXT NOT NULL REFERENCES orders(id),
    position     INTEGER NOT NULL,
    campaign_id  TEXT NOT NULL REFERENCES campaigns(id),
    coupon_code  TEXT,
    name         TEXT NOT NULL,
    amount       INTEGER NOT NULL,
    lines        TEXT NOT NULL,
    PRIMARY KEY (order_id, position)
);
CREATE INDEX order_discounts_campaign ON order_discounts(campaign_id);

-- Each line's share of the order's discounts, which its tax is computed on.
ALTER TABLE order_items ADD COLUMN discount_amount INTEGER NOT NULL DEFAULT 0;
