//! Writes take their time from the app's clock, so a fixed clock fixes what they
//! stamp and which business day they fall in.

use brigade::domain::menu::{self, CategoryFields, ItemFields};
use brigade::domain::orders::{self, NewLine, NewOrder, OrderType};
use brigade::time::Clock;
use chrono::{TimeZone, Utc};

use crate::helpers::{create_tenant, test_config};

#[test]
fn a_fixed_clock_stamps_every_write_and_picks_the_business_day() {
    let dir = tempfile::tempdir().unwrap();
    // 03:04 UTC, before the 04:00 turn of the business day: still 1 January's service.
    let at = Utc.with_ymd_and_hms(2030, 1, 2, 3, 4, 5).unwrap();
    let app = brigade::App::open_with_clock(test_config(dir.path()), Clock::fixed(at)).unwrap();
    let tenant_id = create_tenant(&app, "Clock Bistro", "clock-bistro");
    let db = app.db.tenant(tenant_id.parse().unwrap()).unwrap();
    let order = app
        .write(&db, "test", |tx| {
            let category = menu::insert_category(
                tx,
                &CategoryFields {
                    name: "Mains".into(),
                    position: 0,
                    station_id: None,
                },
            )?;
            let item = menu::insert_item(
                tx,
                &ItemFields {
                    category_id: category.id,
                    name: "Soup".into(),
                    description: String::new(),
                    price: 650,
                    tax_rate: 0,
                    available: true,
                    station_id: None,
                    modifiers: Vec::new(),
                },
            )?;
            let new = NewOrder {
                order_type: OrderType::Takeaway,
                table_id: None,
                session_id: None,
                customer: None,
                notes: None,
                items: vec![NewLine {
                    menu_item_id: item.id,
                    quantity: 1,
                    modifiers: None,
                    notes: None,
                    course: None,
                    seat: None,
                }],
                hold_courses: false,
            };
            orders::create_order(tx, &new, None)
        })
        .unwrap();
    assert_eq!(order.created_at, "2030-01-02T03:04:05.000Z");
    assert_eq!(order.business_date, "2030-01-01");
    assert_eq!(order.order_number, "300101-001");
}

/// Reads take "now" from the same clock as writes: under a clock fixed in
/// 2030, the day before it is past and its own day's slots start after it.
#[test]
fn reads_take_now_from_the_app_clock() {
    let at = Utc.with_ymd_and_hms(2030, 6, 1, 10, 0, 0).unwrap();
    let app = crate::helpers::TestApp::spawn_with_clock(|_| {}, Clock::fixed(at));
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 8);
    app.owner
        .get("/reservations/availability?date=2030-05-31&party_size=2")
        .expect_problem(422, "validation_failed");
    let today = app
        .owner
        .get("/reservations/availability?date=2030-06-01&party_size=2")
        .expect(200);
    let first = today["slots"][0]["starts_at"].as_str().unwrap().to_string();
    assert!(first.as_str() > "2030-06-01T10:00", "{first}");
    crate::helpers::Client::anonymous(&app.base)
        .get("/public/test-bistro/availability?date=2030-05-31&party_size=2")
        .expect_problem(422, "validation_failed");
}
