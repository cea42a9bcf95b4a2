//! Attendance over HTTP: clocking in and out and breaks, by the signed-in person
//! or by PIN on a paired device, and the records with their minutes; punch
//! corrections and their approval, managers' edits, each record's history and
//! the payroll lock. The rules live in `domain::attendance`.

use rocket::{get, patch, post};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::api::auth::staff_by_pin;
use crate::api::body::{ActionBody, JsonBody};
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Caller, Can, Permission, Principal};
use crate::db::run_blocking;
use crate::domain::attendance::{
    self, AttendanceLock, AttendanceRecord, Correction, CorrectionStatus, Decision, HistoryEntry,
    LockRequest, Punch, PunchChange, RecordFilter,
};
use crate::domain::validate::{path_id, query_filter, query_time, Checks};
use crate::error::{ApiError, Problem};

super::group![
    list_records,
    clock_in,
    clock_out,
    break_start,
    break_end,
    edit_record,
    record_history,
    request_correction,
    list_corrections,
    approve_correction,
    reject_correction,
    get_lock,
    lock,
];

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

/// The signed-in person's id, or why this caller cannot act for itself.
fn own_user_id(caller: &Caller) -> Result<String, ApiError> {
    match &caller.principal {
        Principal::User { id } => Ok(id.clone()),
        Principal::ApiKey { .. } => Err(ApiError::forbidden(
            "user_required",
            "Only a signed-in staff member corrects their own punches.",
        )),
    }
}

/// Edit a record's punches directly, with the reason kept in its history. Closing
/// a record left open (flagged for review) this way is the usual path.
///
/// Roles: owner, manager.
/// The new times must make a coherent record: clock-out after clock-in, its
/// breaks inside, no overlap with the person's other records, nothing in the
/// future. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = PunchChange, responses(
    (status = 200, body = AttendanceRecord), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "The record is in the locked period. Codes: `period_locked` (names `locked_until`)"),
    (status = 422, body = Problem, description = "Times that do not make a coherent record, or a missing reason. Codes: `validation_failed`")))]
#[patch("/attendance/<id>", data = "<body>")]
async fn edit_record(
    caller: Can<perm::AttendanceManage>,
    id: &str,
    body: JsonBody<PunchChange>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "attendance record")?;
    let change = body.value;
    let record = caller
        .write(move |tx| attendance::edit_record(tx, &id, &change))
        .await?;
    Reply::ok(record)
}

/// A record's changes, oldest first: clock-out, approved corrections and
/// managers' edits, each with the times before and after, who, when and why.
///
/// Roles: any signed-in role.
/// Owners and managers read any record's history; others their own records'
/// only (404 for another's). Changes nothing.
#[utoipa::path(tag = "Attendance", responses(
    (status = 200, body = Vec<HistoryEntry>), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/attendance/<id>/history")]
async fn record_history(caller: Can<perm::AttendancePunch>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "attendance record")?;
    let only_own = match caller.require(Permission::AttendanceManage) {
        Ok(()) => None,
        Err(refused) => Some(own_user_id(&caller).map_err(|_| refused)?),
    };
    let now = caller.now();
    let entries = caller
        .read(move |conn| {
            let record = attendance::get_record(conn, &id, now)?;
            if only_own.is_some_and(|own| own != record.user_id) {
                return Err(ApiError::not_found("attendance record"));
            }
            attendance::history(conn, &id)
        })
        .await?;
    Reply::ok(entries)
}

/// Ask for a correction of one of your own records (a forgotten clock-out, a
/// wrong time). It stays pending until a manager approves or rejects it; the
/// record changes only on approval.
///
/// Roles: any signed-in role.
/// A signed-in person only (403 `user_required` for a device or API key); another
/// person's record is a 404. The times are checked as for a manager's edit. No
/// webhook event.
#[utoipa::path(tag = "Attendance", request_body = PunchChange, responses(
    (status = 201, body = Correction), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "The record is in the locked period. Codes: `period_locked` (names `locked_until`)"),
    (status = 422, body = Problem, description = "Times that do not make a coherent record, or a missing reason. Codes: `validation_failed`")))]
#[post("/attendance/<id>/corrections", data = "<body>")]
async fn request_correction(
    caller: Can<perm::AttendancePunch>,
    id: &str,
    body: JsonBody<PunchChange>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "attendance record")?;
    let user_id = own_user_id(&caller)?;
    let change = body.value;
    let correction = caller
        .write(move |tx| attendance::request_correction(tx, &user_id, &id, &change))
        .await?;
    Reply::created(correction)
}

/// Punch corrections, oldest first.
///
/// Roles: any signed-in role.
/// Owners and managers see everyone's; others their own. Changes nothing.
#[utoipa::path(tag = "Attendance", params(
    ("status" = Option<String>, Query, description = "`pending`, `approved` or `rejected`"),
    ("limit" = Option<u32>, Query), ("cursor" = Option<String>, Query)),
    responses((status = 200, body = Page<Correction>), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 422, body = Problem)))]
#[get("/attendance/corrections?<status>&<limit>&<cursor>")]
async fn list_corrections(
    caller: Can<perm::AttendancePunch>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let status = query_filter("status", status, CorrectionStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    let user_id = match caller.require(Permission::AttendanceManage) {
        Ok(()) => None,
        Err(refused) => Some(own_user_id(&caller).map_err(|_| refused)?),
    };
    let rows = caller
        .read(move |conn| {
            attendance::list_corrections(conn, user_id.as_deref(), status, cursor.as_deref(), limit)
        })
        .await?;
    Reply::ok(pagination::page(rows, limit, |c| c.id.clone()))
}

async fn decide(
    caller: &Caller,
    id: &str,
    body: ActionBody<Decision>,
    to: CorrectionStatus,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "correction")?;
    let decision = body.0;
    let correction = caller
        .write(move |tx| attendance::decide_correction(tx, &id, to, &decision))
        .await?;
    Reply::ok(correction)
}

/// Approve a pending correction: the record takes its times, and its history
/// names the correction.
///
/// Roles: owner, manager.
/// The times are checked again against the record as it is now. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = Decision, responses(
    (status = 200, body = Correction), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Decided already, or the record is in the locked period. Codes: `illegal_transition` (names `current_status`), `period_locked` (names `locked_until`)"),
    (status = 422, body = Problem, description = "Times that no longer make a coherent record, or a note too long. Codes: `validation_failed`")))]
#[post("/attendance/corrections/<id>/approve", data = "<body>")]
async fn approve_correction(
    caller: Can<perm::AttendanceManage>,
    id: &str,
    body: ActionBody<Decision>,
) -> Result<Reply, ApiError> {
    decide(&caller, id, body, CorrectionStatus::Approved).await
}

/// Reject a pending correction: the record stays as it is.
///
/// Roles: owner, manager.
/// A correction of a locked record may still be rejected, which clears it from
/// the queue. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = Decision, responses(
    (status = 200, body = Correction), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Decided already. Codes: `illegal_transition` (names `current_status`)"),
    (status = 422, body = Problem, description = "A note too long. Codes: `validation_failed`")))]
#[post("/attendance/corrections/<id>/reject", data = "<body>")]
async fn reject_correction(
    caller: Can<perm::AttendanceManage>,
    id: &str,
    body: ActionBody<Decision>,
) -> Result<Reply, ApiError> {
    decide(&caller, id, body, CorrectionStatus::Rejected).await
}

/// The payroll lock: records that started before `locked_until` refuse changes.
///
/// Roles: any signed-in role.
/// Changes nothing.
#[utoipa::path(tag = "Attendance", responses(
    (status = 200, body = AttendanceLock), (status = 401, body = Problem),
    (status = 403, body = Problem)))]
#[get("/attendance/lock")]
async fn get_lock(caller: Can<perm::AttendancePunch>) -> Result<Reply, ApiError> {
    Reply::ok(caller.read(attendance::get_lock).await?)
}

/// Lock attendance before `until` for payroll: corrections, approvals, edits and
/// punches on records that started earlier are refused from then on.
///
/// Roles: owner, manager.
/// The lock only moves forward, and not into the future. No webhook event.
#[utoipa::path(tag = "Attendance", request_body = LockRequest, responses(
    (status = 200, body = AttendanceLock), (status = 401, body = Problem),
    (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Earlier than the current lock. Codes: `lock_moves_forward_only` (names `locked_until`)"),
    (status = 422, body = Problem, description = "Not a past RFC 3339 instant. Codes: `validation_failed`")))]
#[post("/attendance/lock", data = "<body>")]
async fn lock(
    caller: Can<perm::AttendanceManage>,
    body: JsonBody<LockRequest>,
) -> Result<Reply, ApiError> {
    let request = body.value;
    let lock = caller
        .write(move |tx| attendance::lock(tx, &request))
        .await?;
    Reply::ok(lock)
}
