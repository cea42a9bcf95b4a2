//! Campaign types: what a campaign gives (its kind and rules), when it applies
//! (its conditions), and its states. The API speaks amounts in major units and
//! percentages as numbers; the stored rules keep minor units and thousandths of
//! a percent, as the rest of Brigade does.

use chrono::{DateTime, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::validate::Checks;
use crate::error::ApiError;
use crate::money::{rate_from_json, to_json};

/// The order types a condition may name, as orders spell them.
pub const ORDER_TYPES: [&str; 3] = ["dine_in", "takeaway", "delivery"];
pub const MAX_SELECTED: usize = 200;
const MAX_SLOTS: usize = 10;
const MAX_WINDOWS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CampaignKind {
    /// A percentage off the whole order, or off chosen items or categories.
    PercentOff,
    /// An amount off the whole order, or off chosen items or categories.
    AmountOff,
    /// Buy `buy.quantity` of a set, get `get.quantity` of a set free (or at
    /// `get.percent` off); the cheapest qualifying units get the discount.
    Bogo,
    /// One unit from each slot together for `bundle.price`.
    FixedPriceBundle,
}

impl CampaignKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CampaignKind::PercentOff => "percent_off",
            CampaignKind::AmountOff => "amount_off",
            CampaignKind::Bogo => "bogo",
            CampaignKind::FixedPriceBundle => "fixed_price_bundle",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::PercentOff,
            Self::AmountOff,
            Self::Bogo,
            Self::FixedPriceBundle,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

/// `draft` → `active` ⇄ `paused`. Only an active campaign prices orders; only a
/// draft or paused one may be edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CampaignStatus {
    Draft,
    Active,
    Paused,
}

impl CampaignStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CampaignStatus::Draft => "draft",
            CampaignStatus::Active => "active",
            CampaignStatus::Paused => "paused",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Draft, Self::Active, Self::Paused]
            .into_iter()
            .find(|status| status.as_str() == text)
    }

    pub fn can_become(self, next: CampaignStatus) -> bool {
        use CampaignStatus::*;
        matches!(
            (self, next),
            (Draft, Active) | (Active, Paused) | (Paused, Active)
        )
    }
}

/// Menu items by id or by category; both empty means every item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    #[serde(default)]
    #[schema(max_items = 200)]
    pub item_ids: Vec<String>,
    #[serde(default)]
    #[schema(max_items = 200)]
    pub category_ids: Vec<String>,
}

impl Selection {
    pub fn is_everything(&self) -> bool {
        self.item_ids.is_empty() && self.category_ids.is_empty()
    }

    pub fn holds(&self, item_id: Option<&str>, category_id: Option<&str>) -> bool {
        self.is_everything()
            || item_id.is_some_and(|id| self.item_ids.iter().any(|i| i == id))
            || category_id.is_some_and(|id| self.category_ids.iter().any(|c| c == id))
    }

    fn check(&self, checks: &mut Checks, field: &str) {
        for (list, name) in [
            (&self.item_ids, "item_ids"),
            (&self.category_ids, "category_ids"),
        ] {
            if list.len() > MAX_SELECTED {
                checks.fail(format!("{field}.{name}"), format!("at most {MAX_SELECTED}"));
            }
            for (i, id) in list.iter().enumerate() {
                checks.id(&format!("{field}.{name}[{i}]"), id);
                if list[..i].contains(id) {
                    checks.fail(format!("{field}.{name}[{i}]"), "is listed twice");
                }
            }
        }
    }
}

/// The `buy` side of a BOGO deal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BuyRule {
    /// Units to buy for each free (or discounted) group.
    #[schema(minimum = 1, maximum = 99)]
    pub quantity: i64,
    /// The items bought, as a selection: every item when both lists are empty.
    pub items: Selection,
}

/// The `get` side of a BOGO deal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GetRule {
    /// Units discounted for each group bought.
    #[schema(minimum = 1, maximum = 99)]
    pub quantity: i64,
    /// The items discounted; when absent, the same items as `buy` (buy two,
    /// get the third free).
    pub items: Option<Selection>,
    /// Percent off each discounted unit: 100 (the default) makes it free.
    #[schema(minimum = 0.001, maximum = 100)]
    pub percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BundleRule {
    /// What one unit from each slot costs together.
    #[schema(minimum = 0, maximum = 10000000)]
    pub price: f64,
    /// Two to ten slots, each a set of items one unit is taken from.
    #[schema(min_items = 2, max_items = 10)]
    pub slots: Vec<Selection>,
}

/// A time of day range in the tenant's time zone; `to` before `from` runs past
/// midnight (22:00 to 02:00).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeWindow {
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub from: String,
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub to: String,
}

/// When a campaign applies; every condition given must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Conditions {
    /// From this instant (RFC 3339).
    #[schema(format = DateTime)]
    pub starts_at: Option<String>,
    /// Until this instant (RFC 3339), after `starts_at`.
    #[schema(format = DateTime)]
    pub ends_at: Option<String>,
    /// Days of the business day (`mon` … `sun`): an order at 01:00 after a
    /// Friday night's service is Friday's.
    #[serde(default)]
    #[schema(max_items = 7)]
    pub weekdays: Vec<Weekday>,
    /// Times of day in the tenant's time zone (happy hour).
    #[serde(default)]
    #[schema(max_items = 10)]
    pub time_windows: Vec<TimeWindow>,
    /// Order types it applies to; all when empty.
    #[serde(default)]
    #[schema(max_items = 3)]
    pub order_types: Vec<ConditionOrderType>,
    /// The order's subtotal (before discounts) must reach this.
    #[schema(minimum = 0, maximum = 10000000)]
    pub min_subtotal: Option<f64>,
    /// The first this many completed orders only.
    #[schema(minimum = 1, maximum = 1000000)]
    pub max_uses: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Weekday {
    pub fn of(day: chrono::Weekday) -> Self {
        use Weekday::*;
        [Mon, Tue, Wed, Thu, Fri, Sat, Sun][day.num_days_from_monday() as usize]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConditionOrderType {
    DineIn,
    Takeaway,
    Delivery,
}

impl ConditionOrderType {
    pub fn as_str(self) -> &'static str {
        ORDER_TYPES[self as usize]
    }
}

/// A campaign as the API takes it (`POST`) and shows it, without its state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignDefinition {
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: String,
    pub kind: CampaignKind,
    /// `percent_off`: the percentage.
    #[serde(default)]
    #[schema(minimum = 0.001, maximum = 100)]
    pub percent: Option<f64>,
    /// `amount_off`: the amount.
    #[serde(default)]
    #[schema(minimum = 0.01, maximum = 10000000)]
    pub amount: Option<f64>,
    /// `percent_off` and `amount_off`: the items discounted; the whole order
    /// when absent.
    #[serde(default)]
    pub applies_to: Option<Selection>,
    /// `bogo`: what is bought.
    #[serde(default)]
    pub buy: Option<BuyRule>,
    /// `bogo`: what is given.
    #[serde(default)]
    pub get: Option<GetRule>,
    /// `fixed_price_bundle`: the slots and the price.
    #[serde(default)]
    pub bundle: Option<BundleRule>,
    #[serde(default)]
    pub conditions: Conditions,
    /// Applies on top of other campaigns; among campaigns that do not stack,
    /// only the one that gives the most applies. Default false.
    #[serde(default)]
    pub stackable: bool,
    /// Applies only to orders holding one of its coupon codes. Default false.
    #[serde(default)]
    pub requires_coupon: bool,
}

/// `PATCH /campaigns/{id}`: the fields given replace the campaign's.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignPatch {
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: Option<String>,
    pub kind: Option<CampaignKind>,
    #[schema(minimum = 0.001, maximum = 100)]
    pub percent: Option<f64>,
    #[schema(minimum = 0.01, maximum = 10000000)]
    pub amount: Option<f64>,
    pub applies_to: Option<Selection>,
    pub buy: Option<BuyRule>,
    pub get: Option<GetRule>,
    pub bundle: Option<BundleRule>,
    pub conditions: Option<Conditions>,
    pub stackable: Option<bool>,
    pub requires_coupon: Option<bool>,
}

impl CampaignPatch {
    pub fn apply_to(self, mut definition: CampaignDefinition) -> CampaignDefinition {
        if let Some(kind) = self.kind {
            // Another kind: the old kind's rules go.
            if kind != definition.kind {
                definition.percent = None;
                definition.amount = None;
                definition.applies_to = None;
                definition.buy = None;
                definition.get = None;
                definition.bundle = None;
            }
            definition.kind = kind;
        }
        definition.name = self.name.unwrap_or(definition.name);
        definition.percent = self.percent.or(definition.percent);
        definition.amount = self.amount.or(definition.amount);
        definition.applies_to = self.applies_to.or(definition.applies_to);
        definition.buy = self.buy.or(definition.buy);
        definition.get = self.get.or(definition.get);
        definition.bundle = self.bundle.or(definition.bundle);
        definition.conditions = self.conditions.unwrap_or(definition.conditions);
        definition.stackable = self.stackable.unwrap_or(definition.stackable);
        definition.requires_coupon = self.requires_coupon.unwrap_or(definition.requires_coupon);
        definition
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Campaign {
    pub id: String,
    pub status: CampaignStatus,
    #[serde(flatten)]
    pub definition: CampaignDefinition,
    /// Completed orders it discounted.
    pub uses: i64,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// A campaign's rules checked and in minor units, as stored and as the pricing
/// engine reads them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    pub kind: CampaignKind,
    /// Thousandths of a percent.
    pub percent: Option<i64>,
    pub amount: Option<i64>,
    pub applies_to: Selection,
    pub buy: Option<(i64, Selection)>,
    /// Quantity, items (`None`: the bought ones), thousandths of a percent off.
    pub get: Option<(i64, Option<Selection>, i64)>,
    pub bundle: Option<(i64, Vec<Selection>)>,
    pub starts_at: Option<DateTime<Utc>>,
    pub ends_at: Option<DateTime<Utc>>,
    pub weekdays: Vec<Weekday>,
    pub time_windows: Vec<(NaiveTime, NaiveTime)>,
    pub order_types: Vec<String>,
    pub min_subtotal: Option<i64>,
    pub max_uses: Option<i64>,
}

const FULL_PERCENT: i64 = 100_000;

impl Rules {
    /// Checks a definition, naming each wrong field, and converts it.
    pub fn from_definition(
        definition: &CampaignDefinition,
        exponent: u32,
    ) -> Result<Rules, ApiError> {
        let mut checks = Checks::new();
        checks.text("name", &definition.name, 80);
        let percent = |checks: &mut Checks, field: &str, value: Option<f64>| {
            value.and_then(|value| match rate_from_json(value) {
                Ok(0) => {
                    checks.fail(field, "must be more than 0");
                    None
                }
                Ok(rate) => Some(rate),
                Err(message) => {
                    checks.fail(field, message);
                    None
                }
            })
        };
        let rate = percent(&mut checks, "percent", definition.percent);
        let get_rate = definition
            .get
            .as_ref()
            .and_then(|get| percent(&mut checks, "get.percent", get.percent));
        let amount = definition
            .amount
            .map(|amount| checks.money("amount", amount, exponent));
        if amount == Some(0) {
            checks.fail("amount", "must be more than 0");
        }
        let needs = |checks: &mut Checks, field: &str, given: bool| {
            if !given {
                checks.fail(
                    field,
                    format!("is required for a {} campaign", definition.kind.as_str()),
                );
            }
        };
        let refuses = |checks: &mut Checks, field: &str, given: bool| {
            if given {
                checks.fail(
                    field,
                    format!("does not apply to a {} campaign", definition.kind.as_str()),
                );
            }
        };
        let kind = definition.kind;
        needs(
            &mut checks,
            "percent",
            kind != CampaignKind::PercentOff || definition.percent.is_some(),
        );
        refuses(
            &mut checks,
            "percent",
            kind != CampaignKind::PercentOff && definition.percent.is_some(),
        );
        needs(
            &mut checks,
            "amount",
            kind != CampaignKind::AmountOff || definition.amount.is_some(),
        );
        refuses(
            &mut checks,
            "amount",
            kind != CampaignKind::AmountOff && definition.amount.is_some(),
        );
        let discounts_items = matches!(kind, CampaignKind::PercentOff | CampaignKind::AmountOff);
        refuses(
            &mut checks,
            "applies_to",
            !discounts_items && definition.applies_to.is_some(),
        );
        needs(
            &mut checks,
            "buy",
            kind != CampaignKind::Bogo || definition.buy.is_some(),
        );
        needs(
            &mut checks,
            "get",
            kind != CampaignKind::Bogo || definition.get.is_some(),
        );
        refuses(
            &mut checks,
            "buy",
            kind != CampaignKind::Bogo && definition.buy.is_some(),
        );
        refuses(
            &mut checks,
            "get",
            kind != CampaignKind::Bogo && definition.get.is_some(),
        );
        let is_bundle = kind == CampaignKind::FixedPriceBundle;
        needs(
            &mut checks,
            "bundle",
            !is_bundle || definition.bundle.is_some(),
        );
        refuses(
            &mut checks,
            "bundle",
            !is_bundle && definition.bundle.is_some(),
        );

        if let Some(applies_to) = &definition.applies_to {
            applies_to.check(&mut checks, "applies_to");
        }
        if let Some(buy) = &definition.buy {
            checks.integer_in("buy.quantity", buy.quantity, 1..=99);
            buy.items.check(&mut checks, "buy");
        }
        if let Some(get) = &definition.get {
            checks.integer_in("get.quantity", get.quantity, 1..=99);
            if let Some(items) = &get.items {
                items.check(&mut checks, "get.items");
            }
        }
        let bundle = definition.bundle.as_ref().map(|bundle| {
            let price = checks.money("bundle.price", bundle.price, exponent);
            if !(2..=MAX_SLOTS).contains(&bundle.slots.len()) {
                checks.fail("bundle.slots", format!("give 2 to {MAX_SLOTS} slots"));
            }
            for (i, slot) in bundle.slots.iter().enumerate() {
                slot.check(&mut checks, &format!("bundle.slots[{i}]"));
            }
            (price, bundle.slots.clone())
        });

        let conditions = &definition.conditions;
        let instant = |checks: &mut Checks, field: &str, value: &Option<String>| {
            value
                .as_ref()
                .and_then(|text| match DateTime::parse_from_rfc3339(text) {
                    Ok(at) => Some(at.with_timezone(&Utc)),
                    Err(_) => {
                        checks.fail(field, "must be an RFC 3339 date-time");
                        None
                    }
                })
        };
        let starts_at = instant(&mut checks, "conditions.starts_at", &conditions.starts_at);
        let ends_at = instant(&mut checks, "conditions.ends_at", &conditions.ends_at);
        if let (Some(start), Some(end)) = (starts_at, ends_at) {
            if end <= start {
                checks.fail("conditions.ends_at", "must be after starts_at");
            }
        }
        let mut weekdays = conditions.weekdays.clone();
        weekdays.dedup();
        if weekdays.len() != conditions.weekdays.len() || conditions.weekdays.len() > 7 {
            checks.fail("conditions.weekdays", "list each day once");
        }
        if conditions.time_windows.len() > MAX_WINDOWS {
            checks.fail("conditions.time_windows", format!("at most {MAX_WINDOWS}"));
        }
        let mut windows = Vec::new();
        for (i, window) in conditions.time_windows.iter().enumerate() {
            let field = format!("conditions.time_windows[{i}]");
            let parse = |text: &str| {
                NaiveTime::parse_from_str(text, "%H:%M")
                    .ok()
                    .filter(|_| text.len() == 5)
            };
            match (parse(&window.from), parse(&window.to)) {
                (Some(from), Some(to)) if from != to => windows.push((from, to)),
                (Some(_), Some(_)) => checks.fail(format!("{field}.to"), "must differ from from"),
                (None, _) => checks.fail(format!("{field}.from"), "must be a time as HH:MM"),
                (_, None) => checks.fail(format!("{field}.to"), "must be a time as HH:MM"),
            }
        }
        let order_types: Vec<String> = conditions
            .order_types
            .iter()
            .map(|t| t.as_str().to_string())
            .collect();
        if (1..order_types.len()).any(|i| order_types[..i].contains(&order_types[i])) {
            checks.fail("conditions.order_types", "list each order type once");
        }
        let min_subtotal = conditions
            .min_subtotal
            .map(|value| checks.money("conditions.min_subtotal", value, exponent));
        if let Some(max_uses) = conditions.max_uses {
            checks.integer_in("conditions.max_uses", max_uses, 1..=1_000_000);
        }
        checks.finish()?;
        Ok(Rules {
            kind,
            percent: rate,
            amount,
            applies_to: definition.applies_to.clone().unwrap_or_default(),
            buy: definition
                .buy
                .as_ref()
                .map(|buy| (buy.quantity, buy.items.clone())),
            get: definition.get.as_ref().map(|get| {
                (
                    get.quantity,
                    get.items.clone(),
                    get_rate.unwrap_or(FULL_PERCENT),
                )
            }),
            bundle,
            starts_at,
            ends_at,
            weekdays: conditions.weekdays.clone(),
            time_windows: windows,
            order_types,
            min_subtotal,
            max_uses: conditions.max_uses,
        })
    }

    /// The definition these rules came from, as the API shows it.
    pub fn to_definition(
        &self,
        name: &str,
        stackable: bool,
        requires_coupon: bool,
        exponent: u32,
    ) -> CampaignDefinition {
        let percent = |rate: i64| rate as f64 / 1000.0;
        let money = |minor: i64| to_json(minor, exponent);
        let discounts_items = matches!(
            self.kind,
            CampaignKind::PercentOff | CampaignKind::AmountOff
        );
        CampaignDefinition {
            name: name.to_string(),
            kind: self.kind,
            percent: self.percent.map(percent),
            amount: self.amount.map(money),
            applies_to: (discounts_items && !self.applies_to.is_everything())
                .then(|| self.applies_to.clone()),
            buy: self.buy.as_ref().map(|(quantity, items)| BuyRule {
                quantity: *quantity,
                items: items.clone(),
            }),
            get: self.get.as_ref().map(|(quantity, items, rate)| GetRule {
                quantity: *quantity,
                items: items.clone(),
                percent: Some(percent(*rate)),
            }),
            bundle: self.bundle.as_ref().map(|(price, slots)| BundleRule {
                price: money(*price),
                slots: slots.clone(),
            }),
            conditions: Conditions {
                starts_at: self
                    .starts_at
                    .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                ends_at: self
                    .ends_at
                    .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                weekdays: self.weekdays.clone(),
                time_windows: self
                    .time_windows
                    .iter()
                    .map(|(from, to)| TimeWindow {
                        from: from.format("%H:%M").to_string(),
                        to: to.format("%H:%M").to_string(),
                    })
                    .collect(),
                order_types: self
                    .order_types
                    .iter()
                    .filter_map(|t| ORDER_TYPES.iter().position(|known| known == t))
                    .map(|i| {
                        [
                            ConditionOrderType::DineIn,
                            ConditionOrderType::Takeaway,
                            ConditionOrderType::Delivery,
                        ][i]
                    })
                    .collect(),
                min_subtotal: self.min_subtotal.map(money),
                max_uses: self.max_uses,
            },
            stackable,
            requires_coupon,
        }
    }

    /// Every menu item and category the rules name, to check they exist.
    pub fn named_ids(&self) -> (Vec<&str>, Vec<&str>) {
        let mut selections: Vec<&Selection> = vec![&self.applies_to];
        if let Some((_, items)) = &self.buy {
            selections.push(items);
        }
        if let Some((_, Some(items), _)) = &self.get {
            selections.push(items);
        }
        if let Some((_, slots)) = &self.bundle {
            selections.extend(slots);
        }
        let items = selections
            .iter()
            .flat_map(|s| s.item_ids.iter().map(String::as_str))
            .collect();
        let categories = selections
            .iter()
            .flat_map(|s| s.category_ids.iter().map(String::as_str))
            .collect();
        (items, categories)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(json: serde_json::Value) -> CampaignDefinition {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_definition_round_trips_through_its_rules() {
        let given = definition(serde_json::json!({
            "name": "Happy hour", "kind": "percent_off", "percent": 12.5,
            "applies_to": {"category_ids": ["0190b3c4-0000-7000-8000-000000000001"]},
            "conditions": {"weekdays": ["fri", "sat"], "time_windows": [{"from": "22:00", "to": "02:00"}],
                           "order_types": ["dine_in"], "min_subtotal": 20, "max_uses": 50,
                           "starts_at": "2026-01-01T00:00:00Z"},
            "stackable": true
        }));
        let rules = Rules::from_definition(&given, 2).unwrap();
        assert_eq!(rules.percent, Some(12_500));
        assert_eq!(rules.min_subtotal, Some(2000));
        assert_eq!(rules.to_definition("Happy hour", true, false, 2), given);
    }

    #[test]
    fn each_kind_needs_its_rules_and_refuses_the_others() {
        let wrong = definition(serde_json::json!({"name": "x", "kind": "bogo", "percent": 10}));
        let error = Rules::from_definition(&wrong, 2).unwrap_err();
        let text = format!("{error:?}");
        for field in ["percent", "buy", "get"] {
            assert!(text.contains(field), "{field}: {text}");
        }
        let window = definition(
            serde_json::json!({"name": "x", "kind": "amount_off", "amount": 5,
            "conditions": {"time_windows": [{"from": "25:00", "to": "10:00"}]}}),
        );
        assert!(
            format!("{:?}", Rules::from_definition(&window, 2).unwrap_err())
                .contains("time_windows[0].from")
        );
    }

    #[test]
    fn states_move_from_draft_to_active_and_between_active_and_paused() {
        use CampaignStatus::*;
        assert!(Draft.can_become(Active));
        assert!(Active.can_become(Paused));
        assert!(Paused.can_become(Active));
        assert!(!Draft.can_become(Paused));
        assert!(!Active.can_become(Active));
    }
}
