//! Menu types: requests, responses and their validation.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::validate::nullable;
use crate::domain::validate::Checks;
use crate::money;

pub const MAX_MODIFIERS: usize = 40;

#[derive(Debug, Serialize, ToSchema)]
pub struct Category {
    pub id: String,
    pub name: String,
    pub position: i64,
    /// The kitchen station its items cook at unless an item names its own;
    /// `null` sends them to the default station.
    pub station_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCategory {
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: String,
    /// Where it sorts among the others (default 0).
    #[schema(minimum = 0, maximum = 10000)]
    pub position: Option<i64>,
    /// A kitchen station of this business.
    pub station_id: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CategoryPatch {
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(minimum = 0, maximum = 10000)]
    pub position: Option<i64>,
    /// A kitchen station of this business; `null` clears the station.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub station_id: Option<Option<String>>,
}

/// A category's writable fields, validated.
#[derive(Debug, Clone)]
pub struct CategoryFields {
    pub name: String,
    pub position: i64,
    pub station_id: Option<String>,
}

impl CategoryFields {
    pub fn from_new(new: &NewCategory, checks: &mut Checks) -> CategoryFields {
        CategoryFields {
            name: checks.text("name", &new.name, 80),
            position: checks.integer_in("position", new.position.unwrap_or(0), 0..=10_000),
            station_id: new
                .station_id
                .as_deref()
                .map(|id| checks.id("station_id", id)),
        }
    }

    pub fn of(category: &Category) -> CategoryFields {
        CategoryFields {
            name: category.name.clone(),
            position: category.position,
            station_id: category.station_id.clone(),
        }
    }

    pub fn apply(&mut self, patch: &CategoryPatch, checks: &mut Checks) {
        if let Some(name) = &patch.name {
            self.name = checks.text("name", name, 80);
        }
        if let Some(position) = patch.position {
            self.position = checks.integer_in("position", position, 0..=10_000);
        }
        if let Some(station_id) = &patch.station_id {
            self.station_id = station_id.as_deref().map(|id| checks.id("station_id", id));
        }
    }
}

/// A modifier as stored and shown: price in minor units inside, decimal outside.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredModifier {
    pub name: String,
    pub price: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Modifier {
    /// Unique within the item, ignoring case.
    #[schema(min_length = 1, max_length = 60, pattern = r"\S")]
    pub name: String,
    /// Added to the item's price when chosen: money, as the item's price.
    #[schema(minimum = 0, maximum = 10000000)]
    pub price: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MenuItem {
    pub id: String,
    pub category_id: String,
    pub name: String,
    pub description: String,
    pub price: f64,
    /// Percentage, such as 7.5.
    pub tax_rate: f64,
    pub available: bool,
    /// The kitchen station it cooks at; `null` uses its category's station, or
    /// the default one.
    pub station_id: Option<String>,
    pub modifiers: Vec<Modifier>,
    /// Set once the item is deleted; past orders keep their lines.
    pub archived_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMenuItem {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: String,
    #[schema(max_length = 1000)]
    pub description: Option<String>,
    /// A category of this menu.
    pub category_id: String,
    /// Money: a decimal number in the business's currency with at most its
    /// minor-unit digits (2 for USD).
    #[schema(minimum = 0, maximum = 10000000)]
    pub price: f64,
    /// A percentage with at most three decimals.
    #[schema(minimum = 0, maximum = 100)]
    pub tax_rate: Option<f64>,
    pub available: Option<bool>,
    /// A kitchen station of this business.
    pub station_id: Option<String>,
    #[schema(max_items = 40)]
    pub modifiers: Option<Vec<Modifier>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MenuItemPatch {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(max_length = 1000)]
    pub description: Option<String>,
    /// A category of this menu.
    pub category_id: Option<String>,
    /// Money: a decimal number in the business's currency with at most its
    /// minor-unit digits (2 for USD).
    #[schema(minimum = 0, maximum = 10000000)]
    pub price: Option<f64>,
    /// A percentage with at most three decimals.
    #[schema(minimum = 0, maximum = 100)]
    pub tax_rate: Option<f64>,
    pub available: Option<bool>,
    /// A kitchen station of this business; `null` clears the station.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub station_id: Option<Option<String>>,
    /// Replaces the item's modifiers.
    #[schema(max_items = 40)]
    pub modifiers: Option<Vec<Modifier>>,
}

/// A menu item's writable fields, validated, in minor units.
#[derive(Debug, Clone)]
pub struct ItemFields {
    pub category_id: String,
    pub name: String,
    pub description: String,
    pub price: i64,
    pub tax_rate: i64,
    pub available: bool,
    pub station_id: Option<String>,
    pub modifiers: Vec<StoredModifier>,
}

impl ItemFields {
    pub fn from_new(new: &NewMenuItem, exponent: u32, checks: &mut Checks) -> ItemFields {
        let mut fields = ItemFields {
            category_id: checks.id("category_id", &new.category_id),
            name: checks.text("name", &new.name, 120),
            description: checks
                .optional_text("description", new.description.as_deref(), 1000)
                .unwrap_or_default(),
            price: checks.money("price", new.price, exponent),
            tax_rate: 0,
            available: new.available.unwrap_or(true),
            station_id: new
                .station_id
                .as_deref()
                .map(|id| checks.id("station_id", id)),
            modifiers: Vec::new(),
        };
        if let Some(rate) = new.tax_rate {
            fields.tax_rate = tax_rate(rate, checks);
        }
        if let Some(modifiers) = &new.modifiers {
            fields.modifiers = parse_modifiers(modifiers, exponent, checks);
        }
        fields
    }

    pub fn apply(&mut self, patch: &MenuItemPatch, exponent: u32, checks: &mut Checks) {
        if let Some(category_id) = &patch.category_id {
            self.category_id = checks.id("category_id", category_id);
        }
        if let Some(name) = &patch.name {
            self.name = checks.text("name", name, 120);
        }
        if let Some(description) = &patch.description {
            self.description = checks
                .optional_text("description", Some(description), 1000)
                .unwrap_or_default();
        }
        if let Some(price) = patch.price {
            self.price = checks.money("price", price, exponent);
        }
        if let Some(rate) = patch.tax_rate {
            self.tax_rate = tax_rate(rate, checks);
        }
        if let Some(available) = patch.available {
            self.available = available;
        }
        if let Some(station_id) = &patch.station_id {
            self.station_id = station_id.as_deref().map(|id| checks.id("station_id", id));
        }
        if let Some(modifiers) = &patch.modifiers {
            self.modifiers = parse_modifiers(modifiers, exponent, checks);
        }
    }
}

fn tax_rate(rate: f64, checks: &mut Checks) -> i64 {
    money::rate_from_json(rate).unwrap_or_else(|message| {
        checks.fail("tax_rate", message);
        0
    })
}

fn parse_modifiers(
    modifiers: &[Modifier],
    exponent: u32,
    checks: &mut Checks,
) -> Vec<StoredModifier> {
    if modifiers.len() > MAX_MODIFIERS {
        checks.fail("modifiers", format!("at most {MAX_MODIFIERS} modifiers"));
    }
    let mut parsed: Vec<StoredModifier> = Vec::with_capacity(modifiers.len());
    for (i, modifier) in modifiers.iter().enumerate() {
        let name = checks.text(&format!("modifiers[{i}].name"), &modifier.name, 60);
        if parsed.iter().any(|m| m.name.eq_ignore_ascii_case(&name)) {
            checks.fail(format!("modifiers[{i}].name"), "is listed twice");
        }
        let price = checks.money(&format!("modifiers[{i}].price"), modifier.price, exponent);
        parsed.push(StoredModifier { name, price });
    }
    parsed
}

pub fn modifiers_to_json(modifiers: &[StoredModifier], exponent: u32) -> Vec<Modifier> {
    modifiers
        .iter()
        .map(|m| Modifier {
            name: m.name.clone(),
            price: money::to_json(m.price, exponent),
        })
        .collect()
}
