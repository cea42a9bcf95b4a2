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
