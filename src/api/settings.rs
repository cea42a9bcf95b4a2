//! Tenant settings as the other groups need them (currency, business day).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;

use crate::error::ApiError;

pub struct TenantSettings {
    pub currency: String,
    pub timezone: chrono_tz::Tz,
    pub business_day_start_hour: i64,
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

pub fn load(conn: &Connection) -> Result<TenantSettings, ApiError> {
    let (currency, timezone, business_day_start_hour): (String, String, i64) = conn.query_row(
        "SELECT currency, timezone, business_day_start_hour FROM settings WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(TenantSettings {
        currency,
        timezone: timezone.parse().unwrap_or(chrono_tz::UTC),
        business_day_start_hour,
    })
}
