//! Shifts over HTTP: the schedule managers draft, publish and copy, the shifts
//! staff see, and the comparison of the schedule with attendance. The rules live
//! in `domain::shifts`.

use rocket::{delete, get, patch, post};

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Caller, Can, Permission, Principal};
use crate::domain::shifts::{self, *};
use crate::domain::validate::{path_id, query_filter, query_time, Checks};
use crate::error::{ApiError, Problem};
use crate::time::{parse_rfc3339, rfc3339};

super::group![
    list_shifts,
    create_shift,
    my_shifts,
    compare_shifts,
    get_shift,
    update_shift,
    delete_shift,
    publish_shifts,
    copy_week,
];

/// Whether the caller sees only what is published.
fn staff_view(caller: &Caller) -> bool {
    caller.require(Permission::ShiftsManage).is_err()
}

/// Shifts starting within `from`..`to`, by start time.
///
/// Roles: any signed-in role.
/// Owners and managers see drafts too; everyone else only published and
/// `changed` shifts. Filters: `user_id`, `status` (`draft`, `published`,
/// `changed`). Changes nothing.
#[utoipa::path(tag = "Shifts", params(
    ("from" = Option<String>, Query, description = "starting at or after this instant"),
    ("to" = Option<String>, Query, description = "starting before this instant"),
    ("user_id" = Option<String>, Query, description = "one staff member's shifts"),
    ("status" = Option<ShiftStatus>, Query, description = "one status only"),
    ("limit" = Option<u32>, Query, description = "at most this many (default 50, max 200)"),
    ("cursor" = Option<String>, Query, description = "the `next_cursor` of the previous page")),
    responses((status = 200, body = Page<Shift>), (status = 403, body = Problem),
    (status = 422, body = Problem)))]
#[get("/shifts?<from>&<to>&<user_id>&<status>&<limit>&<cursor>")]
async fn list_shifts(
    caller: Can<perm::ShiftsRead>,
    from: Option<&str>,
    to: Option<&str>,
    user_id: Option<&str>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let limit = pagination::limit(limit)?;
    let mut checks = Checks::new();
    let user_id = user_id.map(|id| checks.id("user_id", id));
    let cursor = cursor.map(|id| checks.id("cursor", id));
    checks.finish()?;
    let filter = ShiftFilter {
        from: query_time("from", from)?,
        to: query_time("to", to)?,
        user_id,
        status: query_filter("status", status, ShiftStatus::parse)?,
        staff_view: staff_view(&caller),
    };
    caller
        .read(move |conn| {
            let rows = shifts::list_shifts(conn, &filter, cursor.as_deref(), limit + 1)?;
            Reply::ok(pagination::page(rows, limit, |s| s.id.clone()))
        })
        .await
}

/// Draft a shift for a person, or an open shift for a role or station.
///
/// Roles: owner, manager.
/// The shift starts as a `draft`, seen by staff once published. A person's shifts
/// may not overlap (touching ends are fine). No webhook event.
#[utoipa::path(tag = "Shifts", request_body = NewShift, responses(
    (status = 201, body = Shift), (status = 403, body = Problem),
    (status = 409, body = Problem, description = "The person works then already. Codes: `shift_overlap` (names `other_shift` with its id and times)"),
    (status = 422, body = Problem, description = "Codes: `validation_failed` (times, break, unknown person or station)")))]
#[post("/shifts", data = "<body>")]
async fn create_shift(
    caller: Can<perm::ShiftsManage>,
    key: IdempotencyKey,
    body: JsonBody<NewShift>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                Reply::created(shifts::insert_shift(tx, &body)?)
            })
        })
        .await
}

/// The signed-in person's published shifts, by start time.
///
/// Roles: any signed-in role.
/// Upcoming ones (not yet ended) unless `from` or `to` is given; `changed` marks
/// a shift edited since it was published. A device credential without a person
/// is refused (403 `user_required`). Changes nothing.
#[utoipa::path(tag = "Shifts", params(
    ("from" = Option<String>, Query, description = "starting at or after this instant"),
    ("to" = Option<String>, Query, description = "starting before this instant")),
    responses((status = 200, body = Page<Shift>), (status = 403, body = Problem),
    (status = 422, body = Problem)))]
#[get("/shifts/me?<from>&<to>")]
async fn my_shifts(
    caller: Can<perm::ShiftsRead>,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Reply, ApiError> {
    let Principal::User { id } = &caller.principal else {
        return Err(ApiError::forbidden(
            "user_required",
            "Only a signed-in staff member has shifts of their own.",
        ));
    };
    let (from, to) = (query_time("from", from)?, query_time("to", to)?);
    let ending_after = (from.is_none() && to.is_none()).then(|| rfc3339(caller.now()));
    let filter = ShiftFilter {
        from,
        to,
        user_id: Some(id.clone()),
        status: None,
        staff_view: true,
    };
    caller
        .read(move |conn| {
            let mut rows = shifts::list_shifts(conn, &filter, None, u32::MAX)?;
            if let Some(now) = ending_after {
                rows.retain(|shift| shift.ends_at > now);
            }
            Reply::ok(Page {
                data: rows,
                next_cursor: None,
            })
        })
        .await
}

/// Scheduled against worked time per person for shifts starting within `from`..`to`.
///
/// Roles: owner, manager.
/// Without `from` and `to`, the current week from Monday in the business's time
/// zone; with one of them, the seven days from or before it; at most 62 days.
/// Published shifts only. A clock-in more than `late_grace_minutes` (5) after a
/// shift's start is a late arrival; a shift that has ended with no clock-in
/// during it is missed. Labour cost is worked minutes at the person's hourly
/// wage. Changes nothing.
#[utoipa::path(tag = "Shifts", params(
    ("from" = Option<String>, Query, description = "shifts starting at or after this instant"),
    ("to" = Option<String>, Query, description = "shifts starting before this instant")),
    responses((status = 200, body = Comparison), (status = 403, body = Problem),
    (status = 422, body = Problem)))]
#[get("/shifts/compare?<from>&<to>")]
async fn compare_shifts(
    caller: Can<perm::ShiftsManage>,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Reply, ApiError> {
    let from = query_time("from", from)?.as_deref().and_then(parse_rfc3339);
    let to = query_time("to", to)?.as_deref().and_then(parse_rfc3339);
    let now = caller.now();
    caller
        .read(move |conn| Reply::ok(shifts::compare(conn, from, to, now)?))
        .await
}

/// Get a shift.
///
/// Roles: any signed-in role.
/// A draft is found by owners and managers only (404 for others).
#[utoipa::path(tag = "Shifts", responses(
    (status = 200, body = Shift), (status = 404, body = Problem)))]
#[get("/shifts/<id>")]
async fn get_shift(caller: Can<perm::ShiftsRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "shift")?;
    let staff_view = staff_view(&caller);
    caller
        .read(move |conn| Reply::ok(shifts::get_shift(conn, &id, staff_view)?))
        .await
}

/// Change a shift: its person, role, station, times, break or notes.
///
/// Roles: owner, manager.
/// Absent fields keep their value. A published shift becomes `changed` (staff see
/// it marked so) until published again. No webhook event.
#[utoipa::path(tag = "Shifts", request_body = ShiftPatch, responses(
    (status = 200, body = Shift), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "The person works then already. Codes: `shift_overlap` (names `other_shift` with its id and times)"),
    (status = 422, body = Problem, description = "Codes: `validation_failed`")))]
#[patch("/shifts/<id>", data = "<body>")]
async fn update_shift(
    caller: Can<perm::ShiftsManage>,
    id: &str,
    body: JsonBody<ShiftPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "shift")?;
    caller
        .write(move |tx| Reply::ok(shifts::update_shift(tx, &id, &body)?))
        .await
}

/// Delete a shift.
///
/// Roles: owner, manager.
/// Gone for staff at once, published or not. No webhook event.
#[utoipa::path(tag = "Shifts", responses((status = 204), (status = 404, body = Problem)))]
#[delete("/shifts/<id>")]
async fn delete_shift(caller: Can<perm::ShiftsManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "shift")?;
    caller
        .write(move |tx| shifts::delete_shift(tx, &id))
        .await?;
    Ok(Reply::no_content())
}

/// Publish the drafts and changed shifts starting within `from`..`to`.
///
/// Roles: owner, manager.
/// Staff see them from now on; answers with the shifts it published. No webhook event.
#[utoipa::path(tag = "Shifts", request_body = PublishRange, responses(
    (status = 200, body = Published), (status = 403, body = Problem),
    (status = 422, body = Problem, description = "Codes: `validation_failed`")))]
#[post("/shifts/publish", data = "<body>")]
async fn publish_shifts(
    caller: Can<perm::ShiftsManage>,
    body: JsonBody<PublishRange>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::ok(shifts::publish(tx, &body)?))
        .await
}

/// Copy a week's shifts to another week as drafts.
///
/// Roles: owner, manager.
/// Weeks start on the Mondays given, in the business's time zone; copies keep their
/// local times. A copy that would overlap a shift of its person is skipped and
/// listed in `skipped` with the shift it overlaps. No webhook event.
#[utoipa::path(tag = "Shifts", request_body = CopyWeek, responses(
    (status = 200, body = CopiedWeek), (status = 403, body = Problem),
    (status = 422, body = Problem, description = "Codes: `validation_failed` (not a Monday, the same week)")))]
#[post("/shifts/copy-week", data = "<body>")]
async fn copy_week(
    caller: Can<perm::ShiftsManage>,
    body: JsonBody<CopyWeek>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::ok(shifts::copy_week(tx, &body)?))
        .await
}
