//! Notifications: the counts the admin dashboard shows as badges.

use rocket::get;
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::backup::schedule::{self, BackupProblem};
use crate::domain::partners::{self, InboxCounts};
use crate::domain::{attendance, shifts, webhooks};
use crate::error::{ApiError, Problem};

super::group![summary,];

#[derive(Serialize, ToSchema)]
pub struct Summary {
    /// Webhook deliveries that gave up after 24 h of retries.
    pub failed_deliveries: i64,
    /// The server's scheduled backups, when the last one failed or the newest
    /// is older than twice the interval; `null` when fine or not set up.
    pub backup: Option<BackupProblem>,
    /// Attendance records still open past the business's `attendance_review_hours`.
    pub attendance_needing_review: i64,
    /// Today's published shifts that started 15 minutes ago or more without their
    /// person clocked in.
    pub shifts_unstaffed: i64,
    /// Punch corrections waiting for a manager's approval.
    pub pending_corrections: i64,
    /// Partners' messages: parked for a manager, failed, and refused in the
    /// last 24 hours.
    pub inbound: InboxCounts,
}

/// What needs attention.
///
/// Roles: owner, manager.
/// `failed_deliveries`: webhook deliveries that gave up; retry them with
/// `POST /webhooks/deliveries/{event_id}/retry`. `attendance_needing_review`:
/// staff still clocked in past the review time. `shifts_unstaffed`: today's
/// shifts whose person has not clocked in 15 minutes after the start.
/// `pending_corrections`: punch corrections to approve or reject.
/// `inbound`: partners' messages parked or failed (retry them with
/// `POST /integrations/messages/{id}/retry`) and refused in the last 24 hours.
#[utoipa::path(tag = "Notifications", responses((status = 200, body = Summary), (status = 403, body = Problem)))]
#[get("/notifications/summary")]
async fn summary(caller: Can<perm::NotificationsRead>) -> Result<Reply, ApiError> {
    let now = caller.app.clock.now();
    let backup = schedule::problem(&caller.app, now);
    caller
        .read(move |conn| {
            Reply::ok(Summary {
                failed_deliveries: webhooks::count_failed(conn)?,
                backup,
                attendance_needing_review: attendance::count_needing_review(conn, now)?,
                shifts_unstaffed: shifts::count_unstaffed(conn, now)?,
                pending_corrections: attendance::count_pending_corrections(conn)?,
                inbound: partners::inbox_counts(conn, now)?,
            })
        })
        .await
}
