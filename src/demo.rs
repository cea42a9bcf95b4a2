//! The demo tenant created on a first start: a small bistro with a realistic menu,
//! two floors of tables, lunch and dinner booking hours and an owner account, so a
//! new install can be tried at once.

use rusqlite::params;
use serde_json::json;
use uuid::Uuid;

use crate::api::reservations::{self, DayRules, TimeSlotRules, Weekday, Window};
use crate::api::users;
use crate::auth::{random_token, Role};
use crate::db::TenantInfo;
use crate::error::ApiError;
use crate::time::now_rfc3339;
use crate::App;

pub const OWNER_EMAIL: &str = "owner@demo.brigade.local";

pub struct DemoLogin {
    pub tenant: TenantInfo,
    pub email: String,
    pub password: String,
}

/// (name, description, price in cents, kitchen station, [(modifier, cents)])
type SeedItem = (
    &'static str,
    &'static str,
    i64,
    &'static str,
    &'static [(&'static str, i64)],
);
/// (table, seats, shape)
type SeedTable = (&'static str, i64, &'static str);

const MENU: &[(&str, &[SeedItem])] = &[
    (
        "Starters",
        &[
            (
                "Tomato soup",
                "Roasted tomatoes, basil oil",
                650,
                "kitchen",
                &[("Extra bread", 150)],
            ),
            (
                "Caesar salad",
                "Romaine, parmesan, croutons",
                950,
                "kitchen",
                &[("Add chicken", 400), ("No anchovies", 0)],
            ),
            (
                "Garlic bread",
                "Sourdough, garlic butter",
                550,
                "kitchen",
                &[("With cheese", 150)],
            ),
            ("Calamari", "Fried squid, lemon aioli", 1150, "fryer", &[]),
        ],
    ),
    (
        "Mains",
        &[
            (
                "Bistro burger",
                "Beef patty, cheddar, brioche bun, fries",
                1650,
                "grill",
                &[
                    ("Bacon", 250),
                    ("Extra patty", 500),
                    ("Gluten-free bun", 200),
                ],
            ),
            (
                "Steak frites",
                "Sirloin, peppercorn sauce, fries",
                2600,
                "grill",
                &[("Rare", 0), ("Medium", 0), ("Well done", 0)],
            ),
            (
                "Margherita pizza",
                "Tomato, mozzarella, basil",
                1400,
                "pizza",
                &[("Extra cheese", 200), ("Vegan cheese", 150)],
            ),
            (
                "Mushroom risotto",
                "Arborio, porcini, parmesan",
                1700,
                "kitchen",
                &[("Truffle oil", 350)],
            ),
            (
                "Fish and chips",
                "Beer-battered cod, peas, tartare",
                1800,
                "fryer",
                &[("Mushy peas", 0)],
            ),
        ],
    ),
    (
        "Desserts",
        &[
            (
                "Chocolate fondant",
                "Warm, vanilla ice cream",
                850,
                "pastry",
                &[],
            ),
            (
                "Lemon tart",
                "Shortcrust, crème fraîche",
                750,
                "pastry",
                &[],
            ),
        ],
    ),
    (
        "Drinks",
        &[
            (
                "Espresso",
                "Double shot",
                300,
                "bar",
                &[("Oat milk", 50), ("Decaf", 0)],
            ),
            (
                "Fresh lemonade",
                "House-made",
                450,
                "bar",
                &[("Sugar-free", 0)],
            ),
            ("House red wine", "Glass, 175 ml", 800, "bar", &[]),
            ("Craft lager", "Pint", 650, "bar", &[]),
        ],
    ),
];

const FLOORS: &[(&str, &[SeedTable])] = &[
    (
        "Main room",
        &[
            ("T1", 2, "square"),
            ("T2", 2, "square"),
            ("T3", 4, "square"),
            ("T4", 4, "square"),
            ("T5", 6, "rect"),
            ("T6", 8, "round"),
        ],
    ),
    (
        "Patio",
        &[
            ("P1", 2, "round"),
            ("P2", 4, "round"),
            ("P3", 4, "round"),
            ("P4", 6, "rect"),
        ],
    ),
];

/// Bookings every day for lunch and dinner, half-hourly.
fn booking_hours() -> TimeSlotRules {
    let window = |start: &str, end: &str| Window {
        start: start.to_string(),
        end: end.to_string(),
    };
    TimeSlotRules {
        days: Weekday::ALL
            .iter()
            .map(|&weekday| DayRules {
                weekday,
                windows: vec![window("12:00", "14:30"), window("18:00", "22:00")],
                slot_minutes: 30,
                max_covers_per_slot: 20,
                max_party_size: 8,
                stay_minutes: 90,
            })
            .collect(),
    }
}

pub fn seed(app: &App) -> Result<DemoLogin, ApiError> {
    let db = app.db.create_tenant("Demo Bistro", "demo", "USD", "UTC")?;
    db.write(|tx| {
        let now = now_rfc3339();
        for (position, (category, items)) in MENU.iter().enumerate() {
            let category_id = Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO menu_categories (id, name, position, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![category_id, category, position as i64, now],
            )?;
            for (name, description, price, station, modifiers) in items.iter() {
                let modifiers: Vec<_> = modifiers.iter().map(|(n, p)| json!({"name": n, "price": p})).collect();
                tx.execute(
                    "INSERT INTO menu_items (id, category_id, name, description, price, tax_rate, kitchen_station, \
                     modifiers, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 8875, ?6, ?7, ?8, ?8)",
                    params![
                        Uuid::now_v7().to_string(),
                        category_id,
                        name,
                        description,
                        price,
                        station,
                        json!(modifiers).to_string(),
                        now
                    ],
                )?;
            }
        }
        for (position, (floor, tables)) in FLOORS.iter().enumerate() {
            let floor_id = Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO floors (id, name, position, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![floor_id, floor, position as i64, now],
            )?;
            for (i, (name, seats, shape)) in tables.iter().enumerate() {
                tx.execute(
                    "INSERT INTO tables (id, floor_id, name, seats, shape, x, y, width, height, created_at, updated_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?9)",
                    params![
                        Uuid::now_v7().to_string(),
                        floor_id,
                        name,
                        seats,
                        shape,
                        (i % 3) as f64 * 3.0,
                        (i / 3) as f64 * 3.0,
                        if *shape == "rect" { 2.0 } else { 1.0 },
                        now
                    ],
                )?;
            }
        }
        reservations::put_rules(tx, &booking_hours())?;
        Ok(())
    })?;
    let password = random_token(16);
    users::create_user(
        &app.db,
        &db,
        OWNER_EMAIL,
        "Demo Owner",
        Role::Owner,
        &password,
    )?;
    Ok(DemoLogin {
        tenant: db.info.clone(),
        email: OWNER_EMAIL.to_string(),
        password,
    })
}
