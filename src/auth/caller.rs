//! Who calls a tenant route: a verified bearer token or API key, matched against
//! the `X-Tenant-ID` header, with the tenant's database ready to use. Routes take
//! it through `Can<P>`, which also checks the route's permission, so no route
//! can leave its check out.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use rocket::http::Status;
use rocket::request::{FromRequest, Outcome, Request};
use rusqlite::Connection;
use uuid::Uuid;

use super::permissions::{self, Grant};
use super::tokens::Claims;
use super::{devices, keys, Permission, Role};
use crate::db::{run_blocking, TenantDb};
use crate::domain::orders::OrderStatus;
use crate::domain::{staff, Tx};
use crate::error::{remember_failure, ApiError};
use crate::App;

#[derive(Debug, Clone)]
pub enum Principal {
    User { id: String },
    ApiKey { id: String },
}

pub struct Caller {
    pub app: Arc<App>,
    pub tenant: Arc<TenantDb>,
    pub principal: Principal,
    pub role: Role,
}

impl Caller {
    /// Runs `work` on a reader connection of the caller's tenant, off the async workers.
    pub async fn read<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let tenant = self.tenant.clone();
        run_blocking(move || tenant.read(work)).await
    }

    /// Runs `work` as a write of the caller's tenant on its group-commit queue,
    /// committed when it returns `Ok`, then applies what the write left to do
    /// after commit.
    pub async fn write<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&mut Tx) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.app
            .write_queued(&self.tenant, self.actor(), work)
            .await
    }

    /// For a check that depends on the request, beyond the route's own permission.
    pub fn require(&self, permission: Permission) -> Result<(), ApiError> {
        if permissions::allows(self.role, permission) {
            Ok(())
        } else {
            Err(refused(self.role, permission))
        }
    }

    /// Whether the caller may move an order to `next` (see the permission table).
    pub fn require_order_move(&self, next: OrderStatus) -> Result<(), ApiError> {
        match permissions::may_move_order(self.role, next) {
            Ok(()) => Ok(()),
            Err(_) if self.role == Role::Kitchen => Err(ApiError::forbidden(
                "permission_denied",
                "kitchen staff may only mark orders preparing or ready",
            )),
            Err(permission) => Err(refused(self.role, permission)),
        }
    }

    /// The app's clock: what reads call "now", as writes do through `Tx`.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.app.clock.now()
    }

    /// Stable identifier of who acted, stored with the records they create.
    pub fn actor(&self) -> String {
        match &self.principal {
            Principal::User { id } => format!("user:{id}"),
            Principal::ApiKey { id } => format!("api_key:{id}"),
        }
    }

    pub fn tenant_id(&self) -> Uuid {
        self.tenant.info.id
    }
}

fn refused(role: Role, permission: Permission) -> ApiError {
    ApiError::forbidden(
        "permission_denied",
        format!("role {} may not {}", role.as_str(), permission.as_str()),
    )
}

pub fn bearer_token<'r>(req: &'r Request<'_>) -> Option<&'r str> {
    let value = req.headers().get_one("Authorization")?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The `X-Tenant-ID` header: `Ok(None)` when absent.
pub fn tenant_header(req: &Request<'_>) -> Result<Option<Uuid>, ApiError> {
    match req.headers().get_one("X-Tenant-ID") {
        None => Ok(None),
        Some(text) => text.trim().parse().map(Some).map_err(|_| {
            ApiError::bad_request("invalid_tenant_header", "X-Tenant-ID must be a tenant UUID")
        }),
    }
}

async fn authenticate(req: &Request<'_>, permission: Permission) -> Result<Caller, ApiError> {
    let app = req
        .rocket()
        .state::<Arc<App>>()
        .ok_or_else(|| ApiError::internal("app state missing"))?
        .clone();
    let token = bearer_token(req)
        .ok_or_else(|| ApiError::unauthorized("send Authorization: Bearer <token or API key>"))?
        .to_string();
    let tenant_id = tenant_header(req)?.ok_or_else(|| {
        ApiError::bad_request(
            "tenant_header_required",
            "send the X-Tenant-ID header with the tenant UUID",
        )
    })?;
    let address = req.client_ip();
    run_blocking(move || {
        let (token_tenant, principal, claims, key_role) = if token.starts_with(keys::PREFIX) {
            let key = keys::find(&*app.db.registry()?, &token)?
                .ok_or_else(|| ApiError::unauthorized("unknown or revoked API key"))?;
            (
                key.tenant_id,
                Principal::ApiKey { id: key.id },
                None,
                key.role,
            )
        } else {
            let claims = app.tokens.verify(&token).ok_or_else(|| {
                ApiError::unauthorized("the token is invalid or expired; log in again")
            })?;
            let tenant: Uuid = claims
                .tid
                .parse()
                .map_err(|_| ApiError::unauthorized("the token is invalid"))?;
            let principal = Principal::User {
                id: claims.sub.clone(),
            };
            (tenant, principal, Some(claims), Role::Owner)
        };
        if token_tenant != tenant_id {
            return Err(ApiError::forbidden(
                "tenant_mismatch",
                "the credentials belong to another tenant than X-Tenant-ID",
            ));
        }
        let tenant = app.db.tenant(tenant_id)?;
        let role = match (&principal, claims) {
            (Principal::User { id }, Some(claims)) => {
                user_role(&app, &tenant, id, &claims, permission)?
            }
            (Principal::ApiKey { id }, _) => {
                app.last_seen
                    .record(&app.db, id, address, app.clock.now())?;
                key_role
            }
            (Principal::User { .. }, None) => {
                return Err(ApiError::unauthorized("the token is invalid"))
            }
        };
        if !permissions::allows(role, permission) {
            return Err(refused(role, permission));
        }
        Ok(Caller {
            app,
            tenant,
            principal,
            role,
        })
    })
    .await
}

/// A logged-in user's current role. Their standing is read on every request (one
/// indexed row), so a demotion, a deactivation or a password reset takes effect
/// at once rather than when the token expires: a token issued under an older
/// token generation is refused, and so is one signed in by PIN on a device that
/// has since been revoked.
fn user_role(
    app: &App,
    tenant: &TenantDb,
    id: &str,
    claims: &Claims,
    permission: Permission,
) -> Result<Role, ApiError> {
    let standing = tenant
        .read(|conn| staff::standing(conn, id))?
        .filter(|standing| standing.active)
        .ok_or_else(|| ApiError::unauthorized("the account is no longer active"))?;
    if standing.token_generation != claims.generation {
        return Err(ApiError::unauthorized(
            "this session has ended (the password was changed or reset); log in again",
        ));
    }
    if let Some(device) = &claims.device {
        if devices::live_device(&*app.db.registry()?, tenant.info.id, device)?.is_none() {
            return Err(ApiError::unauthorized(
                "the device this sign-in was made on has been revoked",
            ));
        }
    }
    // A temporary password limits password logins only: a PIN sign-in on a
    // terminal never uses the password.
    if standing.must_change_password
        && claims.device.is_none()
        && permission != Permission::ProfileRead
    {
        return Err(ApiError::forbidden(
            "password_change_required",
            "choose a new password first (POST /api/v1/auth/change-password)",
        ));
    }
    Ok(standing.role)
}

/// The route guard: an authenticated caller whose role has permission `P`.
pub struct Can<P: Grant> {
    caller: Caller,
    permission: PhantomData<P>,
}

impl<P: Grant> Deref for Can<P> {
    type Target = Caller;

    fn deref(&self) -> &Caller {
        &self.caller
    }
}

#[rocket::async_trait]
impl<'r, P: Grant> FromRequest<'r> for Can<P> {
    type Error = ApiError;

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, Self::Error> {
        match authenticate(req, P::PERMISSION).await {
            Ok(caller) => Outcome::Success(Can {
                caller,
                permission: PhantomData,
            }),
            Err(err) => {
                remember_failure(req, &err);
                Outcome::Error((Status::new(err.status.code), err))
            }
        }
    }
}
