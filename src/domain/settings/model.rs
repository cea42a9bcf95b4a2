//! Tenant settings: what the other groups read, and the API's view and patch.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone)]
pub struct TenantSettings {
    pub currency: String,
    pub timezone: chrono_tz::Tz,
    pub business_day_start_hour: i64,
    /// Minutes after its start a confirmed reservation waits before it is a no-show.
    pub reservation_grace_minutes: i64,
    /// New reservations are confirmed at once instead of waiting for staff.
    pub auto_confirm_reservations: bool,
    /// Minutes before a reservation its assigned tables show as reserved.
    pub table_hold_minutes: i64,
    /// An order whose kitchen tickets are all bumped becomes ready by itself.
    pub kitchen_auto_ready: bool,
    /// Hours after which an attendance record still open is flagged for review.
    pub attendance_review_hours: i64,
}

impl TenantSettings {
    /// Digits after the decimal point of the tenant's currency.
    pub fn exponent(&self) -> u32 {
        crate::money::exponent(&self.currency)
    }

    /// The business day `at` belongs to: the local date, counted from the hour the
    /// day starts, so an order at 01:30 still belongs to last night's service.
    pub fn business_date(&self, at: DateTime<Utc>) -> NaiveDate {
        (at.with_timezone(&self.timezone) - Duration::hours(self.business_day_start_hour))
            .date_naive()
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Settings {
    pub business_name: String,
    /// Fixed when the tenant is created: amounts are stored in its minor unit.
    pub currency: String,
    /// IANA time zone; defines local times and the business day.
    pub timezone: String,
    pub business_day_start_hour: i64,
    pub reservation_grace_minutes: i64,
    pub auto_confirm_reservations: bool,
    pub table_hold_minutes: i64,
    /// An order whose kitchen tickets are all bumped becomes ready by itself.
    pub kitchen_auto_ready: bool,
    /// Hours after which an attendance record still open is flagged for review.
    pub attendance_review_hours: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsPatch {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub business_name: Option<String>,
    /// An IANA time zone name such as `Europe/Paris`.
    #[schema(min_length = 1, max_length = 64)]
    pub timezone: Option<String>,
    #[schema(minimum = 0, maximum = 23)]
    pub business_day_start_hour: Option<i64>,
    #[schema(minimum = 0, maximum = 240)]
    pub reservation_grace_minutes: Option<i64>,
    pub auto_confirm_reservations: Option<bool>,
    #[schema(minimum = 0, maximum = 720)]
    pub table_hold_minutes: Option<i64>,
    pub kitchen_auto_ready: Option<bool>,
    #[schema(minimum = 1, maximum = 72)]
    pub attendance_review_hours: Option<i64>,
}
