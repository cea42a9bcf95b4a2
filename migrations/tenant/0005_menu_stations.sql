-- Menu items and categories point at a kitchen station by id instead of naming
-- one in free text; an order line keeps the station it was routed to. A name
-- that matched no station (or the default's) becomes NULL: the default station.

ALTER TABLE menu_categories ADD COLUMN station_id TEXT REFERENCES kitchen_stations(id);
CREATE INDEX menu_categories_station ON menu_categories(station_id) WHERE station_id IS NOT NULL;

ALTER TABLE menu_items ADD COLUMN station_id TEXT REFERENCES kitchen_stations(id);
UPDATE menu_items SET station_id = (
    SELECT s.id FROM kitchen_stations s
    WHERE s.name = trim(menu_items.kitchen_station) AND s.is_default = 0
) WHERE kitchen_station IS NOT NULL;
ALTER TABLE menu_items DROP COLUMN kitchen_station;
CREATE INDEX menu_items_station ON menu_items(station_id) WHERE station_id IS NOT NULL;

-- Not a foreign key: a line keeps the station it was sent to even if that
-- station is later deleted; the kitchen then uses the default one.
ALTER TABLE order_items ADD COLUMN station_id TEXT;
UPDATE order_items SET station_id = (
    SELECT s.id FROM kitchen_stations s
    WHERE s.name = trim(order_items.kitchen_station) AND s.is_default = 0
) WHERE kitchen_station IS NOT NULL;
ALTER TABLE order_items DROP COLUMN kitchen_station;
