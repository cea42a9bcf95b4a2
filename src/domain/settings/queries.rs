//! Settings SQL: the single `settings` row of the tenant file.

use rusqlite::{params, Connection, Transaction};

use super::model::{Settings, SettingsPatch, TenantSettings};
use crate::domain::validate::Checks;
use crate::error::ApiError;

pub fn load(conn: &Connection) -> Result<TenantSettings, ApiError> {
    let view = get_settings(conn)?;
    Ok(TenantSettings {
        currency: view.currency,
        timezone: view.timezone.parse().unwrap_or(chrono_tz::UTC),
        business_day_start_hour: view.business_day_start_hour,
        reservation_grace_minutes: view.reservation_grace_minutes,
        auto_confirm_reservations: view.auto_confirm_reservations,
        table_hold_minutes: view.table_hold_minutes,
        kitchen_auto_ready: view.kitchen_auto_ready,
        attendance_review_hours: view.attendance_review_hours,
    })
}

pub fn get_settings(conn: &Connection) -> Result<Settings, ApiError> {
    Ok(conn.prepare_cached("SELECT business_name, currency, timezone, business_day_start_hour, reservation_grace_minutes, \
         auto_confirm_reservations, table_hold_minutes, kitchen_auto_ready, attendance_review_hours \
         FROM settings WHERE id = 1")?.query_row([],
        |r| {
            Ok(Settings {
                business_name: r.get(0)?,
                currency: r.get(1)?,
                timezone: r.get(2)?,
                business_day_start_hour: r.get(3)?,
                reservation_grace_minutes: r.get(4)?,
                auto_confirm_reservations: r.get(5)?,
                table_hold_minutes: r.get(6)?,
                kitchen_auto_ready: r.get(7)?,
                attendance_review_hours: r.get(8)?,
            })
        },
    )?)
}

pub fn update_settings(tx: &Transaction, patch: &SettingsPatch) -> Result<Settings, ApiError> {
    let current = get_settings(tx)?;
    let mut checks = Checks::new();
    let business_name = match &patch.business_name {
        Some(name) => checks.text("business_name", name, 120),
        None => current.business_name,
    };
    let timezone = match &patch.timezone {
        Some(zone) if zone.parse::<chrono_tz::Tz>().is_err() => {
            checks.fail("timezone", "must be an IANA time zone such as Europe/Paris");
            current.timezone
        }
        Some(zone) => zone.clone(),
        None => current.timezone,
    };
    let start_hour = patch
        .business_day_start_hour
        .unwrap_or(current.business_day_start_hour);
    checks.integer_in("business_day_start_hour", start_hour, 0..=23);
    let grace = patch
        .reservation_grace_minutes
        .unwrap_or(current.reservation_grace_minutes);
    checks.integer_in("reservation_grace_minutes", grace, 0..=240);
    let hold = patch
        .table_hold_minutes
        .unwrap_or(current.table_hold_minutes);
    checks.integer_in("table_hold_minutes", hold, 0..=720);
    let auto_confirm = patch
        .auto_confirm_reservations
        .unwrap_or(current.auto_confirm_reservations);
    let auto_ready = patch
        .kitchen_auto_ready
        .unwrap_or(current.kitchen_auto_ready);
    let review_hours = patch
        .attendance_review_hours
        .unwrap_or(current.attendance_review_hours);
    checks.integer_in("attendance_review_hours", review_hours, 1..=72);
    checks.finish()?;
    tx.prepare_cached(
        "UPDATE settings SET business_name = ?1, timezone = ?2, business_day_start_hour = ?3, \
         reservation_grace_minutes = ?4, table_hold_minutes = ?5, auto_confirm_reservations = ?6, \
         kitchen_auto_ready = ?7, attendance_review_hours = ?8 WHERE id = 1",
    )?
    .execute(params![
        business_name,
        timezone,
        start_hour,
        grace,
        hold,
        auto_confirm,
        auto_ready,
        review_hours
    ])?;
    get_settings(tx)
}
