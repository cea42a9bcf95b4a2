//! Attendance over HTTP: clocking in and out and breaks, by the signed-in person
//! or by PIN on a paired device, and the records with their minutes. The rules
//! live in `domain::attendance`.

use rocket::{get, post};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::api::auth::staff_by_pin;
use crate::api::body::ActionBody;
use crate::api::pagination::Page;
use crate::api::reply::Reply;
use crate::auth::{perm, Caller, Can, Permission, Principal};
use crate::db::run_blocking;
use crate::domain::attendance::{self, AttendanceRecord, Punch, RecordFilter};
use crate::domain::validate::{query_time, Checks};
use crate::error::{ApiError, Problem};

super::group![list_records, clock_in, clock_out, break_start, break_end];

/// Who punches: without a body, the signed-in person; with a PIN, the staff
/// member it belongs to, on a paired device only.
#[derive(Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PunchRequest {
    /// The staff member's 4 to 6 digit PIN; only with a paired device's credential.
    #[schema(pattern = "^[0-9]{4,6}$")]
    pub pin: Option<String>,
}

/// Records `punch` for the person the request names.
async fn punch_for(
    caller: &Caller,
    body: ActionBody<PunchRequest>,
    punch: Punch,
) -> Result<Reply, ApiError> {
    let (user_id, device_id) = match (&body.pin, &caller.principal) {
        (Some(pin), principal) => {
            let (app, tenant, principal, pin) = (
                caller.app.clone(),
                caller.tenant.clone(),
                principal.clone(),
                pin.clone(),
            );
            let (user, _, device) =
                run_blocking(move || staff_by_pin(&app, &tenant, &principal, &pin)).await?;
            (user.id, Some(device.id))
        }
        (None, Principal::User { id }) => (id.clone(), None),
        (None, Principal::ApiKey { .. }) => {
            return Err(ApiError::forbidden(
                "pin_required",
                "A device punches for a staff member with their PIN.",
            ))
        }
    };
    let record = caller
        .write(move |tx| attendance::punch(tx, &user_id, punch, device_id.as_deref()))
        .await?;
    match punch {
        Punch::ClockIn => Reply::created(record),
        _ => Reply::ok(record),
    }
}

/// Clock in: opens the person's record for today's work.
///
/// Roles: any signed-in role.
/// The signed-in person, or with `pin` the staff member it belongs to (a paired
/// device's credential only: 403 `paired_device_required` otherwise). No webhook event.
#[utoipa::path(tag = "Attendance", request_body = PunchRequest, responses(
    (status = 201, body = AttendanceRecord), (status = 401, body = Problem),
    (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Clocked in already. Codes: `illegal_transition` (names `current_status`)"),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/attendance/clock-in", data = "<body>")]
async fn clock_in(
    caller: Can<perm::AttendancePunch>,
    body: ActionBody<PunchRequest>,
) -> Result<Reply, ApiError> {
    punch_for(&caller, body, Punch::ClockIn).await
}

/// Clock out: closes the person's open record, and an open break with it.
///
/// Roles: any signed-in role.
/// Who punches as for clock-in. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = PunchRequest, responses(
    (status = 200, body = AttendanceRecord), (status = 401, body = Problem),
    (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Not clocked in. Codes: `illegal_transition` (names `current_status`)"),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/attendance/clock-out", data = "<body>")]
async fn clock_out(
    caller: Can<perm::AttendancePunch>,
    body: ActionBody<PunchRequest>,
) -> Result<Reply, ApiError> {
    punch_for(&caller, body, Punch::ClockOut).await
}

/// Start a break within the person's open record.
///
/// Roles: any signed-in role.
/// Who punches as for clock-in. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = PunchRequest, responses(
    (status = 200, body = AttendanceRecord), (status = 401, body = Problem),
    (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Not clocked in, or on a break already. Codes: `illegal_transition` (names `current_status`)"),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/attendance/break-start", data = "<body>")]
async fn break_start(
    caller: Can<perm::AttendancePunch>,
    body: ActionBody<PunchRequest>,
) -> Result<Reply, ApiError> {
    punch_for(&caller, body, Punch::BreakStart).await
}

/// End the person's break.
///
/// Roles: any signed-in role.
/// Who punches as for clock-in. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = PunchRequest, responses(
    (status = 200, body = AttendanceRecord), (status = 401, body = Problem),
    (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Not on a break. Codes: `illegal_transition` (names `current_status`)"),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/attendance/break-end", data = "<body>")]
async fn break_end(
    caller: Can<perm::AttendancePunch>,
    body: ActionBody<PunchRequest>,
) -> Result<Reply, ApiError> {
    punch_for(&caller, body, Punch::BreakEnd).await
}

/// Attendance records clocked in within `from`..`to`, oldest first, with worked
/// and break minutes (an open record counted up to now).
///
/// Roles: any signed-in role.
/// Owners and managers see anyone's records; others their own only (403 for
/// another `user_id`). Changes nothing.
#[utoipa::path(tag = "Attendance", params(
    ("user_id" = Option<String>, Query, description = "one staff member's records"),
    ("from" = Option<String>, Query, description = "clocked in at or after this instant"),
    ("to" = Option<String>, Query, description = "clocked in before this instant")),
    responses((status = 200, body = Page<AttendanceRecord>), (status = 403, body = Problem),
    (status = 404, body = Problem), (status = 422, body = Problem)))]
#[get("/attendance?<user_id>&<from>&<to>")]
async fn list_records(
    caller: Can<perm::AttendancePunch>,
    user_id: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Reply, ApiError> {
    let mut checks = Checks::new();
    let user_id = user_id.map(|id| checks.id("user_id", id));
    checks.finish()?;
    let user_id = match (
        &caller.principal,
        user_id,
        caller.require(Permission::AttendanceManage),
    ) {
        (_, user_id, Ok(())) => user_id,
        (Principal::User { id }, None, Err(_)) => Some(id.clone()),
        (Principal::User { id }, Some(asked), Err(_)) if asked == *id => Some(asked),
        (_, _, Err(refused)) => return Err(refused),
    };
    let filter = RecordFilter {
        user_id,
        from: query_time("from", from)?,
        to: query_time("to", to)?,
    };
    let now = caller.now();
    let records = caller
        .read(move |conn| attendance::list_records(conn, &filter, now))
        .await?;
    Reply::ok(Page {
        data: records,
        next_cursor: None,
    })
}
