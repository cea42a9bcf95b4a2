//! The demo tenant created on a first start: a small bistro with a realistic menu,
//! two floors of tables, lunch and dinner booking hours, a happy hour and a
//! welcome coupon, and an owner account, so a new install can be tried at once.

use crate::auth::{random_token, Role};
use crate::db::TenantInfo;
use crate::domain::campaigns::{
    self, CampaignDefinition, CampaignKind, CampaignStatus, Conditions, NewCoupons, Selection,
    TimeWindow,
};
use crate::domain::dining::reservations::{self, DayRules, TimeSlotRules, Weekday, Window};
use crate::domain::menu::{self, CategoryFields, ItemFields, StoredModifier};
use crate::domain::staff;
use crate::domain::stations::{self, NewStation, StationKind};
use crate::domain::tables::{self, NewFloor, NewTable, Shape};
use crate::error::ApiError;
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
type SeedTable = (&'static str, i64, Shape);

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

/// The stations the menu names, beside the default "Kitchen" every tenant has.
const STATIONS: &[&str] = &["Grill", "Fryer", "Pizza", "Pastry", "Bar"];

/// Categories whose items all cook at one station name it once, on the category.
const CATEGORY_STATIONS: &[(&str, &str)] = &[("Desserts", "pastry"), ("Drinks", "bar")];

const FLOORS: &[(&str, &[SeedTable])] = &[
    (
        "Main room",
        &[
            ("T1", 2, Shape::Square),
            ("T2", 2, Shape::Square),
            ("T3", 4, Shape::Square),
            ("T4", 4, Shape::Square),
            ("T5", 6, Shape::Rect),
            ("T6", 8, Shape::Round),
        ],
    ),
    (
        "Patio",
        &[
            ("P1", 2, Shape::Round),
            ("P2", 4, Shape::Round),
            ("P3", 4, Shape::Round),
            ("P4", 6, Shape::Rect),
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

/// Creates the demo tenant through the same domain operations the API uses, so
/// it never holds anything the API would not have created.
/// A running happy hour (drinks 20 % off on weekdays from 16:00 to 18:00) and a
/// running welcome offer behind the code `WELCOME10`.
fn seed_campaigns(tx: &crate::domain::Tx, drinks: Vec<String>) -> Result<(), ApiError> {
    use crate::domain::campaigns::Weekday::*;
    let happy_hour = CampaignDefinition {
        name: "Happy hour".to_string(),
        kind: CampaignKind::PercentOff,
        percent: Some(20.0),
        amount: None,
        applies_to: Some(Selection {
            item_ids: Vec::new(),
            category_ids: drinks,
        }),
        buy: None,
        get: None,
        bundle: None,
        conditions: Conditions {
            weekdays: vec![Mon, Tue, Wed, Thu, Fri],
            time_windows: vec![TimeWindow {
                from: "16:00".to_string(),
                to: "18:00".to_string(),
            }],
            ..Conditions::default()
        },
        stackable: true,
        requires_coupon: false,
    };
    let welcome = CampaignDefinition {
        name: "Welcome 10 %".to_string(),
        kind: CampaignKind::PercentOff,
        percent: Some(10.0),
        applies_to: None,
        stackable: false,
        requires_coupon: true,
        conditions: Conditions::default(),
        ..happy_hour.clone()
    };
    for definition in [&happy_hour, &welcome] {
        let id = campaigns::create_campaign(tx, definition)?.id;
        campaigns::change_campaign_status(tx, &id, CampaignStatus::Active)?;
        if definition.requires_coupon {
            let code = NewCoupons {
                count: None,
                prefix: None,
                code: Some("WELCOME10".to_string()),
                uses_per_code: 1000,
                expires_at: None,
            };
            campaigns::create_coupons(tx, &id, &code)?;
        }
    }
    Ok(())
}

pub fn seed(app: &App) -> Result<DemoLogin, ApiError> {
    let db = app.db.create_tenant("Demo Bistro", "demo", "USD", "UTC")?;
    app.write(&db, "system:demo", |tx| {
        let mut station_ids = std::collections::HashMap::new();
        for (position, name) in STATIONS.iter().enumerate() {
            let station = NewStation {
                name: name.to_string(),
                kind: None,
                warn_after_minutes: None,
                late_after_minutes: None,
                active: None,
                position: Some(position as i64 + 1),
            };
            let id = stations::create_station(tx, &station)?.id;
            station_ids.insert(name.to_lowercase(), id);
        }
        stations::create_station(
            tx,
            &NewStation {
                name: "Expo".to_string(),
                kind: Some(StationKind::Expo),
                warn_after_minutes: None,
                late_after_minutes: None,
                active: None,
                position: Some(STATIONS.len() as i64 + 1),
            },
        )?;
        // "kitchen" is the default station: no id needed.
        let station_id = |name: &str| station_ids.get(name).cloned();
        let mut drinks = None;
        for (position, (category, items)) in MENU.iter().enumerate() {
            let category_station = CATEGORY_STATIONS
                .iter()
                .find(|(name, _)| name == category)
                .map(|(_, station)| *station);
            let fields = CategoryFields {
                name: category.to_string(),
                position: position as i64,
                station_id: category_station.and_then(station_id),
            };
            let category_id = menu::insert_category(tx, &fields)?.id;
            if *category == "Drinks" {
                drinks = Some(category_id.clone());
            }
            for (name, description, price, station, modifiers) in items.iter() {
                let fields = ItemFields {
                    category_id: category_id.clone(),
                    name: name.to_string(),
                    description: description.to_string(),
                    price: *price,
                    tax_rate: 8875,
                    available: true,
                    station_id: if category_station == Some(*station) {
                        None
                    } else {
                        station_id(station)
                    },
                    modifiers: modifiers
                        .iter()
                        .map(|(name, price)| StoredModifier {
                            name: name.to_string(),
                            price: *price,
                        })
                        .collect(),
                };
                menu::insert_item(tx, &fields)?;
            }
        }
        for (position, (floor, floor_tables)) in FLOORS.iter().enumerate() {
            let new = NewFloor {
                name: floor.to_string(),
                position: Some(position as i64),
            };
            let floor_id = tables::insert_floor(tx, &new)?.id;
            for (i, (name, seats, shape)) in floor_tables.iter().enumerate() {
                tables::insert_table(
                    tx,
                    &NewTable {
                        floor_id: floor_id.clone(),
                        name: name.to_string(),
                        seats: *seats,
                        shape: Some(*shape),
                        x: Some((i % 3) as f64 * 3.0),
                        y: Some((i / 3) as f64 * 3.0),
                        width: Some(if *shape == Shape::Rect { 2.0 } else { 1.0 }),
                        height: Some(1.0),
                        rotation: None,
                        active: None,
                    },
                )?;
            }
        }
        reservations::put_rules(tx, &booking_hours())?;
        seed_campaigns(tx, drinks.into_iter().collect())?;
        Ok(())
    })?;
    let password = random_token(16);
    staff::create_user(
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
