//! Login, "who am I", changing one's password, and PIN sign-in on a paired device.
//! Login is the one route without X-Tenant-ID: the email finds the tenant, and
//! X-Tenant-ID only picks one when an email has several.

use std::net::IpAddr;
use std::sync::Arc;

use chrono::Utc;
use rocket::request::{FromRequest, Outcome, Request};
use rocket::{get, post, State};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::api::body::JsonBody;
use crate::api::reply::Reply;
use crate::auth::caller::tenant_header;
use crate::auth::tokens::Claims;
use crate::auth::{devices, passwords, perm, Can, Principal, Role};
use crate::db::{run_blocking, TenantDb, TenantInfo};
use crate::domain::staff::{self, User};
use crate::domain::validate::Checks;
use crate::error::{remember_failure, ApiError, Problem};
use crate::App;

super::group![login, me, change_password, pin_sign_in];

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
}

#[derive(Serialize, ToSchema)]
pub struct LoginResponse {
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the token expires.
    pub expires_in: u64,
    pub user: User,
    pub tenant: TenantInfo,
    /// The password is temporary: until it is changed (`POST /auth/change-password`)
    /// the token is good only for that and `GET /auth/me`.
    pub must_change_password: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePassword {
    pub current_password: String,
    /// At least 8 characters, at most 1024 bytes, not the current password.
    #[schema(min_length = 8, max_length = 1024)]
    pub new_password: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PinSignIn {
    /// The staff member's 4 to 6 digit PIN.
    #[schema(pattern = "^[0-9]{4,6}$")]
    pub pin: String,
}

/// How long a PIN sign-in on a paired device lasts: a shared terminal should not
/// stay signed in as one person for a whole day.
pub const PIN_SESSION: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// A token for `user` of `tenant` and the answer that carries it.
fn signed_in(
    app: &App,
    user: User,
    tenant: TenantInfo,
    generation: i64,
    device: Option<String>,
    ttl: u64,
    must_change_password: bool,
) -> Result<LoginResponse, ApiError> {
    let now = Utc::now().timestamp();
    let access_token = app
        .tokens
        .issue(&Claims {
            sub: user.id.clone(),
            tid: tenant.id.to_string(),
            role: user.role.as_str().to_string(),
            iat: now,
            exp: now + ttl as i64,
            generation,
            device,
        })
        .map_err(ApiError::internal)?;
    Ok(LoginResponse {
        access_token,
        token_type: "Bearer",
        expires_in: ttl,
        user,
        tenant,
        must_change_password,
    })
}

#[derive(Serialize, ToSchema)]
pub struct Me {
    /// `user` or `api_key`.
    pub principal: &'static str,
    pub principal_id: String,
    pub role: Role,
    /// The account, when the caller is a user.
    pub user: Option<User>,
    pub tenant: TenantInfo,
}

/// The optional `X-Tenant-ID` of a login; a malformed one is still refused.
struct LoginTenant(Option<Uuid>);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for LoginTenant {
    type Error = ApiError;
    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, Self::Error> {
        match tenant_header(req) {
            Ok(tenant) => Outcome::Success(LoginTenant(tenant)),
            Err(err) => {
                remember_failure(req, &err);
                Outcome::Error((err.status, err))
            }
        }
    }
}

/// Log in with email and password; returns a bearer token.
///
/// Public: no sign-in.
/// Send `X-Tenant-ID` only to choose among the businesses of an email that has several.
/// Attempts are limited per email and per client address (429 with `Retry-After`). The
/// token lasts `expires_in` seconds; then log in again.
#[utoipa::path(tag = "Auth", request_body(content = LoginRequest, example = json!({
    "email": "owner@demo.brigade.local", "password": "the password printed at first start"})), security(), responses(
    (status = 200, body = LoginResponse),
    (status = 400, body = Problem, description = "The account is in several businesses and no `X-Tenant-ID` chose one; `tenants` lists them. Codes: `tenant_required`, `invalid_tenant_header`"),
    (status = 401, body = Problem, description = "Wrong email or password. Codes: `invalid_credentials`"),
    (status = 429, body = Problem)))]
#[post("/auth/login", data = "<body>")]
async fn login(
    app: &State<Arc<App>>,
    tenant: LoginTenant,
    client: Option<IpAddr>,
    body: JsonBody<LoginRequest>,
) -> Result<Reply, ApiError> {
    let app = app.inner().clone();
    app.login_limiter
        .check(&body.email, client)
        .map_err(ApiError::too_many_requests)?;
    run_blocking(move || {
        let candidates: Vec<(String, String)> = {
            let registry = app.db.registry()?;
            let mut stmt = registry.prepare(
                "SELECT tenant_id, user_id FROM login_index WHERE email = ?1 AND (?2 IS NULL OR tenant_id = ?2)",
            )?;
            let rows = stmt.query_map(
                rusqlite::params![body.email.trim(), tenant.0.map(|t| t.to_string())],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            rows.collect::<Result<_, _>>()?
        };
        if candidates.is_empty() {
            passwords::verify_dummy(&body.password);
        }
        let mut matches = Vec::new();
        for (tenant_id, user_id) in candidates {
            let Ok(tenant_id) = tenant_id.parse::<Uuid>() else { continue };
            let Ok(db) = app.db.tenant(tenant_id) else { continue };
            let account = db.read(|conn| staff::find_account(conn, &user_id))?;
            if let Some(account) = account {
                if account.active && passwords::verify(&account.password_hash, &body.password) {
                    matches.push((db.info.clone(), account));
                }
            }
        }
        if matches.len() > 1 {
            // Only businesses where these credentials are right are named.
            let tenants: Vec<serde_json::Value> = matches
                .iter()
                .map(|(tenant, _)| serde_json::json!({"id": tenant.id, "name": tenant.name}))
                .collect();
            return Err(ApiError::bad_request(
                "tenant_required",
                "this account exists in several businesses; send X-Tenant-ID to choose one",
            )
            .with("tenants", tenants));
        }
        let (tenant, account) = matches
            .pop()
            .ok_or_else(|| ApiError::new(rocket::http::Status::Unauthorized, "invalid_credentials", "wrong email or password"))?;
        Reply::ok(signed_in(
            &app,
            account.user,
            tenant,
            account.token_generation,
            None,
            app.config.token_ttl.as_secs(),
            account.must_change_password,
        )?)
    })
    .await
}

/// Choose a new password (required after a reset). Every other session of the
/// account ends; the answer carries a new token for this one.
///
/// Roles: any signed-in role.
/// Only a person's own login, not an API key or device credential; the current
/// password must be given. Wrong ones count towards the login limit.
#[utoipa::path(tag = "Auth", request_body = ChangePassword, responses(
    (status = 200, body = LoginResponse), (status = 403, body = Problem),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/auth/change-password", data = "<body>")]
async fn change_password(
    caller: Can<perm::ProfileRead>,
    client: Option<IpAddr>,
    body: JsonBody<ChangePassword>,
) -> Result<Reply, ApiError> {
    let Principal::User { id } = caller.principal.clone() else {
        return Err(ApiError::forbidden(
            "user_required",
            "only a staff member logged in with a password can change it",
        ));
    };
    let mut checks = Checks::new();
    staff::check_password(&mut checks, "new_password", &body.new_password);
    if body.new_password == body.current_password {
        checks.fail("new_password", "must differ from the current password");
    }
    checks.finish()?;
    let tenant = caller.tenant.clone();
    let account = caller
        .read({
            let id = id.clone();
            move |conn| staff::find_account(conn, &id)
        })
        .await?
        .ok_or_else(|| ApiError::unauthorized("the account is no longer active"))?;
    caller
        .app
        .login_limiter
        .check(&account.user.email, client)
        .map_err(ApiError::too_many_requests)?;
    let new_password = body.value.new_password;
    let current_password = body.value.current_password;
    let (hash, account) = run_blocking(move || {
        if !passwords::verify(&account.password_hash, &current_password) {
            return Err(ApiError::invalid_field(
                "current_password",
                "is not the current password",
            ));
        }
        Ok((
            passwords::hash(&new_password).map_err(ApiError::internal)?,
            account,
        ))
    })
    .await?;
    let generation = caller
        .write(move |tx| staff::change_password(tx, &id, &hash))
        .await?;
    let ttl = caller.app.config.token_ttl.as_secs();
    Reply::ok(signed_in(
        &caller.app,
        account.user,
        tenant.info.clone(),
        generation,
        None,
        ttl,
        false,
    )?)
}

/// Sign a staff member in by their PIN on a paired device (its device credential
/// as the bearer). The token is theirs, tied to the device, for an hour; wrong
/// PINs are limited per device.
///
/// Roles: any signed-in role.
/// The bearer must be a paired device's credential (403 `paired_device_required`
/// otherwise); actions with the token are the staff member's, within their role.
#[utoipa::path(tag = "Auth", request_body = PinSignIn, responses(
    (status = 200, body = LoginResponse), (status = 401, body = Problem),
    (status = 403, body = Problem), (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/auth/pin", data = "<body>")]
async fn pin_sign_in(
    caller: Can<perm::ProfileRead>,
    body: JsonBody<PinSignIn>,
) -> Result<Reply, ApiError> {
    let (app, tenant, principal) = (
        caller.app.clone(),
        caller.tenant.clone(),
        caller.principal.clone(),
    );
    run_blocking(move || {
        let (user, generation, device) = staff_by_pin(&app, &tenant, &principal, &body.pin)?;
        Reply::ok(signed_in(
            &app,
            user,
            tenant.info.clone(),
            generation,
            Some(device.id),
            PIN_SESSION.as_secs(),
            false,
        )?)
    })
    .await
}

/// The active staff member whose PIN is `pin`, with their token generation and
/// the paired device the bearer is: a PIN counts only from a paired device's
/// credential (403 `paired_device_required`), and wrong PINs are limited per
/// device (401 `invalid_pin`, then 429).
pub fn staff_by_pin(
    app: &App,
    tenant: &TenantDb,
    principal: &Principal,
    pin: &str,
) -> Result<(User, i64, devices::Device), ApiError> {
    let mut checks = Checks::new();
    staff::check_pin(&mut checks, "pin", pin);
    checks.finish()?;
    let paired_device = match principal {
        Principal::ApiKey { id } => devices::live_device(&*app.db.registry()?, tenant.info.id, id)?,
        Principal::User { .. } => None,
    };
    let device = paired_device.ok_or_else(|| {
        ApiError::forbidden(
            "paired_device_required",
            "a PIN counts only on a paired device",
        )
    })?;
    app.pin_limiter
        .check(&device.id)
        .map_err(ApiError::too_many_requests)?;
    let pin_key = app
        .db
        .server_secret(&staff::pin_key_name(tenant.info.id), 32)?;
    let digest = staff::pin_digest(&pin_key, pin);
    match tenant.read(|conn| staff::find_by_pin(conn, &digest))? {
        Some((user, generation)) => Ok((user, generation, device)),
        None => {
            app.pin_limiter.record_failure(device.id);
            Err(ApiError::new(
                rocket::http::Status::Unauthorized,
                "invalid_pin",
                "no active staff member has this PIN",
            ))
        }
    }
}

/// Who the credentials belong to.
///
/// Roles: any signed-in role.
/// For an API key, `principal` is `api_key` and `user` is null; `role` is what every
/// permission is checked against.
#[utoipa::path(tag = "Auth", responses((status = 200, body = Me), (status = 401, body = Problem)))]
#[get("/auth/me")]
async fn me(caller: Can<perm::ProfileRead>) -> Result<Reply, ApiError> {
    run_blocking(move || {
        let (principal, principal_id, user) = match &caller.principal {
            Principal::User { id } => {
                let account = caller.tenant.read(|conn| staff::find_account(conn, id))?;
                ("user", id.clone(), account.map(|a| a.user))
            }
            Principal::ApiKey { id } => ("api_key", id.clone(), None),
        };
        Reply::ok(Me {
            principal,
            principal_id,
            role: caller.role,
            user,
            tenant: caller.tenant.info.clone(),
        })
    })
    .await
}
