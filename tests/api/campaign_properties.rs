//! A property test of pricing: for random menus, campaigns and orders, priced by
//! the server, the total is never negative, no line is discounted beyond its
//! amount, the discounts add up, and the checks of a split add up to the order
//! to the cent.

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

use crate::helpers::TestApp;

const CASES: u32 = 32;
const TAX_RATES: [f64; 4] = [0.0, 5.0, 8.875, 20.0];

#[derive(Debug, Clone)]
struct Item {
    category: usize,
    cents: i64,
    tax: usize,
}

#[derive(Debug, Clone)]
enum Kind {
    Percent(u32, Option<usize>),
    Amount(i64, Option<usize>),
    Bogo(i64, i64, u32, Option<usize>),
    Bundle(i64, usize, usize),
}

#[derive(Debug, Clone)]
struct Case {
    items: Vec<Item>,
    campaigns: Vec<(Kind, bool)>,
    lines: Vec<(usize, i64)>,
    split: Split,
}

#[derive(Debug, Clone)]
enum Split {
    Equal(i64),
    /// The part each unit goes to, by unit in line order.
    Items(Vec<usize>),
}

fn kind() -> impl Strategy<Value = Kind> {
    let category = proptest::option::of(0..2usize);
    prop_oneof![
        (1..=100u32, category.clone()).prop_map(|(p, c)| Kind::Percent(p, c)),
        (1..=6000i64, category.clone()).prop_map(|(a, c)| Kind::Amount(a, c)),
        (1..=3i64, 1..=2i64, 1..=100u32, category).prop_map(|(b, g, p, c)| Kind::Bogo(b, g, p, c)),
        (100..=5000i64, 0..2usize, 0..2usize).prop_map(|(p, a, b)| Kind::Bundle(p, a, b)),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let items = proptest::collection::vec(
        (0..2usize, 1..=4000i64, 0..TAX_RATES.len()).prop_map(|(category, cents, tax)| Item {
            category,
            cents,
            tax,
        }),
        4,
    );
    let campaigns = proptest::collection::vec((kind(), any::<bool>()), 1..=3);
    let lines = proptest::collection::vec((0..4usize, 1..=4i64), 1..=5);
    (
        items,
        campaigns,
        lines,
        2..=4i64,
        proptest::collection::vec(0..3usize, 20),
    )
        .prop_map(|(items, campaigns, lines, parts, picks)| {
            let units: i64 = lines.iter().map(|(_, q)| q).sum();
            let split = if picks[0] == 0 || units < 2 {
                Split::Equal(parts)
            } else {
                // Every part gets at least one unit: the first units go in turn.
                let parts = (units as usize).min(3);
                Split::Items(
                    (0..units as usize)
                        .map(|u| {
                            if u < parts {
                                u
                            } else {
                                picks[u % picks.len()] % parts
                            }
                        })
                        .collect(),
                )
            };
            Case {
                items,
                campaigns,
                lines,
                split,
            }
        })
}

fn cents(value: &Value) -> i64 {
    (value.as_f64().unwrap() * 100.0).round() as i64
}

fn money(cents: i64) -> f64 {
    cents as f64 / 100.0
}

fn selection(categories: &[String], category: Option<usize>) -> Value {
    match category {
        Some(c) => json!({"category_ids": [categories[c]]}),
        None => json!({}),
    }
}

fn definition(kind: &Kind, stackable: bool, categories: &[String]) -> Value {
    let mut body = match kind {
        Kind::Percent(p, c) => {
            json!({"kind": "percent_off", "percent": p, "applies_to": selection(categories, *c)})
        }
        Kind::Amount(a, c) => {
            json!({"kind": "amount_off", "amount": money(*a), "applies_to": selection(categories, *c)})
        }
        Kind::Bogo(b, g, p, c) => json!({"kind": "bogo",
            "buy": {"quantity": b, "items": selection(categories, *c)}, "get": {"quantity": g, "percent": p}}),
        Kind::Bundle(p, a, b) => {
            json!({"kind": "fixed_price_bundle", "bundle": {"price": money(*p),
            "slots": [selection(categories, Some(*a)), selection(categories, Some(*b))]}})
        }
    };
    body["name"] = json!("Generated");
    body["stackable"] = json!(stackable);
    body
}

/// The amounts of an order or check add up: total = subtotal − discount + tax,
/// never negative, and each line's discount within its amount.
fn check_amounts(order: &Value) -> Result<(), TestCaseError> {
    let (subtotal, discount, tax, total) = (
        cents(&order["subtotal"]),
        cents(&order["discount_amount"]),
        cents(&order["tax_amount"]),
        cents(&order["total_amount"]),
    );
    prop_assert!(total >= 0, "negative total: {order}");
    prop_assert_eq!(total, subtotal - discount + tax, "{}", order);
    let mut by_lines = 0;
    for line in order["items"].as_array().unwrap() {
        let off = cents(&line["discount_amount"]);
        prop_assert!(
            off >= 0 && off <= cents(&line["line_total"]),
            "line over-discounted: {line}"
        );
        by_lines += off;
    }
    if order["parent_order_id"].is_null() {
        prop_assert_eq!(by_lines, discount, "lines vs order: {}", order);
        let given: i64 = order["discounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| cents(&d["amount"]))
            .sum();
        prop_assert_eq!(given, discount, "discounts vs order: {}", order);
    }
    Ok(())
}

#[test]
fn priced_orders_are_never_negative_and_their_checks_add_up() {
    let app = TestApp::spawn();
    let owner = &app.owner;
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig {
            cases: CASES,
            failure_persistence: None,
            max_shrink_iters: 32,
            ..ProptestConfig::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    // How many cases were discounted, and split by items and equally, so the
    // properties are seen to hold where they matter.
    let seen = std::cell::Cell::new((0, 0, 0));
    let outcome = runner.run(&case(), |case| {
        let categories: Vec<String> = (0..2)
            .map(|i| {
                owner
                    .post(
                        "/menu/categories",
                        json!({"name": format!("C{i} {}", uuid::Uuid::now_v7().simple())}),
                    )
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let items: Vec<String> = case
            .items
            .iter()
            .map(|item| {
                owner
                    .post(
                        "/menu/items",
                        json!({"name": "Item", "category_id": categories[item.category],
                            "price": money(item.cents), "tax_rate": TAX_RATES[item.tax]}),
                    )
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let campaigns: Vec<String> = case
            .campaigns
            .iter()
            .map(|(kind, stackable)| {
                let made = owner
                    .post("/campaigns", definition(kind, *stackable, &categories))
                    .expect(201);
                let id = made["id"].as_str().unwrap().to_string();
                owner
                    .post(&format!("/campaigns/{id}/activate"), json!({}))
                    .expect(200);
                id
            })
            .collect();
        let lines: Vec<Value> = case
            .lines
            .iter()
            .map(|(item, quantity)| json!({"menu_item_id": items[*item], "quantity": quantity}))
            .collect();
        let order = owner
            .post("/orders", json!({"order_type": "takeaway", "items": lines}))
            .expect(201);
        // The next case starts with no campaign running.
        for id in &campaigns {
            owner
                .post(&format!("/campaigns/{id}/pause"), json!({}))
                .expect(200);
        }
        check_amounts(&order)?;
        let (discounted, by_items, equal) = seen.get();
        let discounted = discounted + i32::from(cents(&order["discount_amount"]) > 0);
        seen.set((discounted, by_items, equal));

        let body = match &case.split {
            Split::Equal(parts) if cents(&order["total_amount"]) >= *parts => {
                json!({"by": "equal", "parts": parts})
            }
            Split::Equal(_) => return Ok(()),
            Split::Items(picks) => {
                let count = picks.iter().max().unwrap() + 1;
                let mut parts: Vec<Vec<Value>> = vec![Vec::new(); count];
                let mut unit = 0;
                for line in order["items"].as_array().unwrap() {
                    let mut held = vec![0i64; count];
                    for _ in 0..line["quantity"].as_i64().unwrap() {
                        held[picks[unit]] += 1;
                        unit += 1;
                    }
                    for (part, quantity) in held.into_iter().enumerate().filter(|(_, q)| *q > 0) {
                        parts[part].push(json!({"line_id": line["id"], "quantity": quantity}));
                    }
                }
                json!({"by": "items", "parts": parts})
            }
        };
        let (discounted, by_items, equal) = seen.get();
        if body["by"] == "items" {
            seen.set((discounted, by_items + 1, equal));
        } else {
            seen.set((discounted, by_items, equal + 1));
        }
        let split = owner
            .post(
                &format!("/orders/{}/split", order["id"].as_str().unwrap()),
                body,
            )
            .expect(201);
        let checks = split["checks"].as_array().unwrap();
        for field in ["subtotal", "discount_amount", "tax_amount", "total_amount"] {
            let sum: i64 = checks.iter().map(|c| cents(&c[field])).sum();
            prop_assert_eq!(
                sum,
                cents(&order[field]),
                "{} of the checks: {}",
                field,
                split
            );
        }
        for check in checks {
            check_amounts(check)?;
        }
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let (discounted, by_items, equal) = seen.get();
    assert!(
        discounted >= CASES as i32 / 4,
        "only {discounted} of {CASES} orders were discounted"
    );
    assert!(
        by_items >= 4 && equal >= 4,
        "splits by items {by_items}, equal {equal}"
    );
}
