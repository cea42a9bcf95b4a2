//! Station types: where the kitchen cooks, and how long a ticket may take there.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StationKind {
    /// Cooks the tickets sent to it.
    Prep,
    /// Sees every station's tickets, to send plates out.
    Expo,
}

impl StationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StationKind::Prep => "prep",
            StationKind::Expo => "expo",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "prep" => Some(StationKind::Prep),
            "expo" => Some(StationKind::Expo),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Station {
    pub id: String,
    pub name: String,
    pub kind: StationKind,
    /// A ticket open this long shows as running late.
    pub warn_after_minutes: i64,
    /// A ticket open this long shows as late.
    pub late_after_minutes: i64,
    pub active: bool,
    pub position: i64,
    /// Lines whose item and category name no active station go here.
    pub is_default: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewStation {
    #[schema(min_length = 1, max_length = 60, pattern = r"\S")]
    pub name: String,
    pub kind: Option<StationKind>,
    /// A ticket waiting this long shows as a warning (default 8).
    #[schema(minimum = 1, maximum = 240)]
    pub warn_after_minutes: Option<i64>,
    /// A ticket waiting this long shows as late; more than
    /// `warn_after_minutes` (default 15).
    #[schema(minimum = 1, maximum = 480)]
    pub late_after_minutes: Option<i64>,
    pub active: Option<bool>,
    #[schema(minimum = 0, maximum = 10000)]
    pub position: Option<i64>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StationPatch {
    #[schema(min_length = 1, max_length = 60, pattern = r"\S")]
    pub name: Option<String>,
    pub kind: Option<StationKind>,
    /// A ticket waiting this long shows as a warning (default 8).
    #[schema(minimum = 1, maximum = 240)]
    pub warn_after_minutes: Option<i64>,
    /// A ticket waiting this long shows as late; more than
    /// `warn_after_minutes` (default 15).
    #[schema(minimum = 1, maximum = 480)]
    pub late_after_minutes: Option<i64>,
    pub active: Option<bool>,
    #[schema(minimum = 0, maximum = 10000)]
    pub position: Option<i64>,
}
