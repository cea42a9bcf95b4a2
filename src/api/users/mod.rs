//! Staff accounts over HTTP: the staff list, adding and changing staff,
//! deactivation and password resets. The rules live in `domain::staff`; wages
//! are shown only to who may see them.

use rocket::{get, patch, post};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::api::body::JsonBody;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{passwords, perm, permissions, Caller, Can, Permission};
use crate::db::run_blocking;
use crate::domain::settings;
use crate::domain::staff::{self, NewStaffMember, StaffMember, StaffPatch};
use crate::domain::validate::{path_id, query_filter, Checks};
use crate::error::{ApiError, Problem};

super::group![
    list_users,
    create_user,
    get_user,
    update_user,
    deactivate_user,
    reactivate_user,
    reset_password,
];

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordReset {
    /// A temporary password, at least 8 characters and at most 1024 bytes; the
    /// user must change it at their next login.
    #[schema(min_length = 8, max_length = 1024)]
    pub password: String,
}

/// The member as `caller` may see them: without the wage unless they may see wages.
fn shown(caller: &Caller, member: StaffMember) -> StaffMember {
    if permissions::allows(caller.role, Permission::StaffWages) {
        member
    } else {
        member.without_wage()
    }
}

async fn currency_exponent(caller: &Caller) -> Result<u32, ApiError> {
    caller
        .read(|conn| Ok(settings::load(conn)?.exponent()))
        .await
}

/// The tenant's PIN key, from the registry.
async fn pin_key(caller: &Caller) -> Result<Vec<u8>, ApiError> {
    let app = caller.app.clone();
    let name = staff::pin_key_name(caller.tenant_id());
    run_blocking(move || app.db.server_secret(&name, 32)).await
}

/// Keeps the registry's login index on the member's current email.
async fn index_email(caller: &Caller, member: &StaffMember) -> Result<(), ApiError> {
    let (app, tenant_id) = (caller.app.clone(), caller.tenant_id());
    let (id, email) = (member.id.clone(), member.email.clone());
    run_blocking(move || staff::index_email(&app.db, tenant_id, &id, &email)).await
}

/// The staff, in the order they were added; `active` filters.
///
/// Roles: any signed-in role.
/// Hourly wages show to owners and managers only. Changes nothing.
#[utoipa::path(tag = "Users", params(
    ("active" = Option<bool>, Query, description = "only active (true) or inactive (false) staff"),
    ("limit" = Option<u32>, Query), ("cursor" = Option<String>, Query)),
    responses((status = 200, body = Page<StaffMember>), (status = 403, body = Problem)))]
#[get("/users?<active>&<limit>&<cursor>")]
async fn list_users(
    caller: Can<perm::StaffRead>,
    active: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let active = query_filter("active", active, |v| v.parse::<bool>().ok())?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    let rows = caller
        .read(move |conn| staff::list_staff(conn, active, cursor.as_deref(), limit))
        .await?;
    let page = pagination::page(rows, limit, |m| m.id.clone());
    Reply::ok(Page {
        data: page.data.into_iter().map(|m| shown(&caller, m)).collect(),
        next_cursor: page.next_cursor,
    })
}

/// Add a staff member with a temporary password they change at first login.
///
/// Roles: owner, manager.
/// Only an owner adds an owner. Emails are unique within the business, and so are
/// PINs, which are kept only as a keyed digest. No webhook event.
#[utoipa::path(tag = "Users", request_body = NewStaffMember, responses(
    (status = 201, body = StaffMember), (status = 403, body = Problem),
    (status = 409, body = Problem, description = "The email or the PIN is taken. Codes: `already_exists`, `pin_taken`"), (status = 422, body = Problem)))]
#[post("/users", data = "<body>")]
async fn create_user(
    caller: Can<perm::StaffManage>,
    body: JsonBody<NewStaffMember>,
) -> Result<Reply, ApiError> {
    let fields = staff::check_new(&body, currency_exponent(&caller).await?)?;
    let key = match body.pin {
        Some(_) => Some(pin_key(&caller).await?),
        None => None,
    };
    let new = body.value;
    let (hash, pin_digest) = run_blocking(move || {
        let hash = passwords::hash(&new.password).map_err(ApiError::internal)?;
        let digest = new
            .pin
            .zip(key)
            .map(|(pin, key)| staff::pin_digest(&key, &pin));
        Ok((hash, digest))
    })
    .await?;
    let acting = caller.role;
    let member = caller
        .write(move |tx| staff::insert_staff(tx, acting, &fields, &hash, pin_digest.as_deref()))
        .await?;
    index_email(&caller, &member).await?;
    Reply::created(shown(&caller, member))
}

/// A staff member.
///
/// Roles: any signed-in role.
/// The hourly wage shows to owners and managers only.
#[utoipa::path(tag = "Users", responses(
    (status = 200, body = StaffMember), (status = 404, body = Problem)))]
#[get("/users/<id>")]
async fn get_user(caller: Can<perm::StaffRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "user")?;
    let member = caller.read(move |conn| staff::get_staff(conn, &id)).await?;
    Reply::ok(shown(&caller, member))
}

/// Change a staff member: name, email, role, phone, wage, PIN (`null` clears phone,
/// wage or PIN). Only an owner changes an owner or makes one; the last active
/// owner keeps the role.
///
/// Roles: owner, manager.
/// A changed email moves the member's login with it. No webhook event.
#[utoipa::path(tag = "Users", request_body = StaffPatch, responses(
    (status = 200, body = StaffMember), (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "The email or PIN is taken, or the last owner would lose the role. Codes: `already_exists`, `pin_taken`, `last_owner`"), (status = 422, body = Problem)))]
#[patch("/users/<id>", data = "<body>")]
async fn update_user(
    caller: Can<perm::StaffManage>,
    id: &str,
    body: JsonBody<StaffPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "user")?;
    let key = match body.pin {
        Some(Some(_)) => pin_key(&caller).await?,
        _ => Vec::new(),
    };
    let changes = staff::check_patch(&body, currency_exponent(&caller).await?, |pin| {
        staff::pin_digest(&key, pin)
    })?;
    let acting = caller.role;
    let email_changed = changes.email.is_some();
    let member = caller
        .write(move |tx| staff::update_staff(tx, acting, &id, &changes))
        .await?;
    if email_changed {
        index_email(&caller, &member).await?;
    }
    Reply::ok(shown(&caller, member))
}

/// Deactivate a staff member: they can no longer log in, and every token they
/// hold is refused at once (also after a reactivation).
///
/// Roles: owner, manager.
/// Only an owner deactivates an owner, and the last active owner stays. No webhook event.
#[utoipa::path(tag = "Users", responses(
    (status = 200, body = StaffMember), (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Inactive already, or the last active owner. Codes: `illegal_transition` (names `current_status`), `last_owner`")))]
#[post("/users/<id>/deactivate")]
async fn deactivate_user(caller: Can<perm::StaffManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "user")?;
    let acting = caller.role;
    let member = caller
        .write(move |tx| staff::deactivate_staff(tx, acting, &id))
        .await?;
    Reply::ok(shown(&caller, member))
}

/// Let a deactivated staff member log in again.
///
/// Roles: owner, manager.
/// Only an owner reactivates an owner. No webhook event.
#[utoipa::path(tag = "Users", responses(
    (status = 200, body = StaffMember), (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Active already. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/users/<id>/reactivate")]
async fn reactivate_user(caller: Can<perm::StaffManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "user")?;
    let acting = caller.role;
    let member = caller
        .write(move |tx| staff::reactivate_staff(tx, acting, &id))
        .await?;
    Reply::ok(shown(&caller, member))
}

/// Set a temporary password the staff member must change at their next login;
/// their current sessions end.
///
/// Roles: owner, manager.
/// Only an owner resets an owner's password. No webhook event.
#[utoipa::path(tag = "Users", request_body = PasswordReset, responses(
    (status = 200, body = StaffMember), (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 422, body = Problem)))]
#[post("/users/<id>/reset-password", data = "<body>")]
async fn reset_password(
    caller: Can<perm::StaffManage>,
    id: &str,
    body: JsonBody<PasswordReset>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "user")?;
    let mut checks = Checks::new();
    staff::check_password(&mut checks, "password", &body.password);
    checks.finish()?;
    let password = body.value.password;
    let hash = run_blocking(move || passwords::hash(&password).map_err(ApiError::internal)).await?;
    let acting = caller.role;
    let member = caller
        .write(move |tx| staff::reset_password(tx, acting, &id, &hash))
        .await?;
    Reply::ok(shown(&caller, member))
}
