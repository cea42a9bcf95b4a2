//! Login and "who am I". Login is the one route without X-Tenant-ID: the email
//! finds the tenant, and X-Tenant-ID only picks one when an email has several.

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
use crate::auth::{passwords, perm, Can, Principal, Role};
use crate::db::{run_blocking, TenantInfo};
use crate::domain::staff::{self, User};
use crate::error::{remember_failure, ApiError, Problem};
use crate::App;

super::group![login, me];

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
                    matches.push((db.info.clone(), account.user));
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
        let (tenant, user) = matches
            .pop()
            .ok_or_else(|| ApiError::new(rocket::http::Status::Unauthorized, "invalid_credentials", "wrong email or password"))?;
        let ttl = app.config.token_ttl.as_secs();
        let now = Utc::now().timestamp();
        let access_token = app
            .tokens
            .issue(&Claims {
                sub: user.id.clone(),
                tid: tenant.id.to_string(),
                role: user.role.as_str().to_string(),
                iat: now,
                exp: now + ttl as i64,
            })
            .map_err(ApiError::internal)?;
        Reply::ok(LoginResponse {
            access_token,
            token_type: "Bearer",
            expires_in: ttl,
            user,
            tenant,
        })
    })
    .await
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
