//! Floors and tables: types and request checks.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::validate::Checks;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Round,
    Square,
    Rect,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Round => "round",
            Shape::Square => "square",
            Shape::Rect => "rect",
        }
    }

    pub fn parse(text: &str) -> Shape {
        match text {
            "round" => Shape::Round,
            "rect" => Shape::Rect,
            _ => Shape::Square,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Floor {
    pub id: String,
    pub name: String,
    pub position: i64,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewFloor {
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: String,
    /// Where the floor sorts among the others (default 0).
    #[schema(minimum = 0, maximum = 10000)]
    pub position: Option<i64>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FloorPatch {
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(minimum = 0, maximum = 10000)]
    pub position: Option<i64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Table {
    pub id: String,
    pub floor_id: String,
    pub name: String,
    pub seats: i64,
    pub shape: Shape,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub rotation: f64,
    /// An inactive table is out of service: shown, but not seatable.
    pub active: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTable {
    pub floor_id: String,
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub name: String,
    #[schema(minimum = 1, maximum = 100)]
    pub seats: i64,
    pub shape: Option<Shape>,
    /// Position on the floor plan, in plan units.
    #[schema(minimum = -100000, maximum = 100000)]
    pub x: Option<f64>,
    #[schema(minimum = -100000, maximum = 100000)]
    pub y: Option<f64>,
    /// Size on the floor plan, more than zero (default 1).
    #[schema(exclusive_minimum = 0, maximum = 100000)]
    pub width: Option<f64>,
    #[schema(exclusive_minimum = 0, maximum = 100000)]
    pub height: Option<f64>,
    /// Degrees clockwise, at least 0 and below 360.
    #[schema(minimum = 0, exclusive_maximum = 360)]
    pub rotation: Option<f64>,
    pub active: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TablePatch {
    pub floor_id: Option<String>,
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(minimum = 1, maximum = 100)]
    pub seats: Option<i64>,
    pub shape: Option<Shape>,
    /// Position on the floor plan, in plan units.
    #[schema(minimum = -100000, maximum = 100000)]
    pub x: Option<f64>,
    #[schema(minimum = -100000, maximum = 100000)]
    pub y: Option<f64>,
    /// Size on the floor plan, more than zero (default 1).
    #[schema(exclusive_minimum = 0, maximum = 100000)]
    pub width: Option<f64>,
    #[schema(exclusive_minimum = 0, maximum = 100000)]
    pub height: Option<f64>,
    /// Degrees clockwise, at least 0 and below 360.
    #[schema(minimum = 0, exclusive_maximum = 360)]
    pub rotation: Option<f64>,
    pub active: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TablePlacement {
    /// A table of this floor.
    pub id: String,
    #[schema(minimum = -100000, maximum = 100000)]
    pub x: f64,
    #[schema(minimum = -100000, maximum = 100000)]
    pub y: f64,
    #[schema(exclusive_minimum = 0, maximum = 100000)]
    pub width: Option<f64>,
    #[schema(exclusive_minimum = 0, maximum = 100000)]
    pub height: Option<f64>,
    #[schema(minimum = 0, exclusive_maximum = 360)]
    pub rotation: Option<f64>,
}

/// Every table of a floor placed at once.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub tables: Vec<TablePlacement>,
}

pub const MAX_SEATS: i64 = 100;

/// Checks a position or size: finite, and for sizes positive.
pub fn check_geometry(checks: &mut Checks, field: &str, value: f64, size: bool) {
    if !value.is_finite() || value.abs() > 100_000.0 {
        checks.fail(field, "must be a number between -100000 and 100000");
    } else if size && value <= 0.0 {
        checks.fail(field, "must be greater than zero");
    }
}

pub fn check_rotation(checks: &mut Checks, field: &str, value: f64) {
    if !(0.0..360.0).contains(&value) {
        checks.fail(field, "must be at least 0 and below 360 degrees");
    }
}
