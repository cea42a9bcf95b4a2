//! Devices over HTTP: setup keys a manager creates, the pairing route a device
//! redeems one at without logging in, the list of paired devices and revoking
//! one. The records live in the registry (`auth::devices`).

use std::net::{IpAddr, Ipv4Addr};

use rocket::request::{FromRequest, Outcome, Request};
use rocket::{delete, get, post, State};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::body::JsonBody;
use crate::api::pagination::Page;
use crate::api::reply::Reply;
use crate::auth::devices::{self, Device, NewSetupKey, SetupKey};
use crate::auth::{perm, Can, Role};
use crate::db::{run_blocking, TenantInfo};
use crate::domain::validate::{path_id, Checks};
use crate::error::{ApiError, Problem};
use crate::App;

super::group![
    create_setup_key,
    list_setup_keys,
    delete_setup_key,
    pair_device,
    list_devices,
    revoke_device,
];

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetupKeyRequest {
    /// What the device will be called until it names itself, such as "Kitchen 1".
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub name: String,
    /// The role the device acts with; any role but owner.
    pub role: Role,
    /// 1 to 10080 (7 days); 15 when absent.
    #[schema(minimum = 1, maximum = 10080)]
    pub expires_in_minutes: Option<i64>,
}

/// A new setup key: its code, shown once, and the same as a URL and a QR code.
#[derive(Serialize, ToSchema)]
pub struct SetupKeyCreated {
    #[serde(flatten)]
    pub key: NewSetupKey,
    /// The pairing page with the code (`<server>/kitchen/pair?code=<code>`), as
    /// the QR code carries it: a phone or screen that scans it pairs there.
    pub pair_url: String,
    /// The QR code of `pair_url`, as an SVG document.
    pub qr_svg: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PairRequest {
    /// The setup key's code; case, spaces and dashes do not matter.
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub code: String,
    /// What the device calls itself, such as "Bar terminal".
    #[schema(min_length = 1, max_length = 80, pattern = r"\S")]
    pub device_name: String,
}

#[derive(Serialize, ToSchema)]
pub struct Paired {
    pub device: Device,
    /// The device's credential, shown once: send it as `Authorization: Bearer`
    /// with `X-Tenant-ID` set to `tenant.id`.
    pub api_key: String,
    pub tenant: TenantInfo,
}

/// The scheme and host the request was sent to, for URLs that lead back here.
pub struct RequestOrigin(String);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for RequestOrigin {
    type Error = ApiError;
    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, Self::Error> {
        let host = req
            .host()
            .map(|h| h.to_string())
            .unwrap_or_else(|| "localhost".to_string());
        Outcome::Success(RequestOrigin(format!("http://{host}")))
    }
}

/// Create a setup key to pair a device (shown once, with its QR code).
///
/// Roles: owner, manager.
/// The key holds the role the device will have, expires after `expires_in_minutes`
/// (default 15, at most 7 days) and pairs one device. Only its digest is kept.
#[utoipa::path(tag = "Devices", request_body = SetupKeyRequest, responses(
    (status = 201, body = SetupKeyCreated), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[post("/devices/setup-keys", data = "<body>")]
async fn create_setup_key(
    caller: Can<perm::DevicesManage>,
    origin: RequestOrigin,
    body: JsonBody<SetupKeyRequest>,
) -> Result<Reply, ApiError> {
    let mut checks = Checks::new();
    let name = checks.text("name", &body.name, 80);
    if body.role == Role::Owner {
        checks.fail("role", "a device cannot act as an owner");
    }
    let minutes = checks.integer_in(
        "expires_in_minutes",
        body.expires_in_minutes
            .unwrap_or(devices::DEFAULT_EXPIRY_MINUTES),
        1..=devices::MAX_EXPIRY_MINUTES,
    );
    checks.finish()?;
    let (app, tenant_id, actor, role) = (
        caller.app.clone(),
        caller.tenant_id(),
        caller.actor(),
        body.role,
    );
    run_blocking(move || {
        let key = devices::create_setup_key(
            &*app.db.registry()?,
            tenant_id,
            &name,
            role,
            chrono::Duration::minutes(minutes),
            &actor,
            app.clock.now(),
        )?;
        let pair_url = devices::pair_url(&origin.0, &key.code);
        Reply::created(SetupKeyCreated {
            qr_svg: devices::qr_svg(&pair_url)?,
            pair_url,
            key,
        })
    })
    .await
}

/// Setup keys not yet used nor expired (without their codes).
///
/// Roles: owner, manager.
/// Changes nothing.
#[utoipa::path(tag = "Devices", responses(
    (status = 200, body = Page<SetupKey>), (status = 403, body = Problem)))]
#[get("/devices/setup-keys")]
async fn list_setup_keys(caller: Can<perm::DevicesManage>) -> Result<Reply, ApiError> {
    let (app, tenant_id) = (caller.app.clone(), caller.tenant_id());
    run_blocking(move || {
        Reply::ok(Page {
            data: devices::pending_setup_keys(&*app.db.registry()?, tenant_id, app.clock.now())?,
            next_cursor: None,
        })
    })
    .await
}

/// Withdraw a setup key that has not been used.
///
/// Roles: owner, manager.
/// The code stops pairing at once.
#[utoipa::path(tag = "Devices", responses(
    (status = 204), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[delete("/devices/setup-keys/<id>")]
async fn delete_setup_key(caller: Can<perm::DevicesManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "setup key")?;
    let (app, tenant_id) = (caller.app.clone(), caller.tenant_id());
    run_blocking(move || devices::delete_setup_key(&*app.db.registry()?, tenant_id, &id)).await?;
    Ok(Reply::no_content())
}

/// Pair a device with a setup key's code; no login. The answer carries the
/// device's credential, once. Five wrong codes from one address within 15
/// minutes are refused with 429.
///
/// Public: no sign-in.
/// The key is used up; the device's credential is an API key of the key's role
/// in the key's business, to send as the bearer with `X-Tenant-ID`.
#[utoipa::path(tag = "Devices", request_body = PairRequest, security(), responses(
    (status = 201, body = Paired), (status = 401, body = Problem), (status = 422, body = Problem),
    (status = 429, body = Problem)))]
#[post("/devices/pair", data = "<body>")]
async fn pair_device(
    app: &State<std::sync::Arc<App>>,
    client: Option<IpAddr>,
    body: JsonBody<PairRequest>,
) -> Result<Reply, ApiError> {
    let address = client.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    app.pairing_limiter
        .check(&address)
        .map_err(ApiError::too_many_requests)?;
    let mut checks = Checks::new();
    let code = checks.text("code", &body.code, 40);
    let device_name = checks.text("device_name", &body.device_name, 80);
    checks.finish()?;
    let app = app.inner().clone();
    run_blocking(move || {
        let paired = devices::pair(
            &mut *app.db.registry()?,
            &code,
            &device_name,
            client,
            app.clock.now(),
        );
        let paired = match paired {
            Ok(paired) => paired,
            Err(err) => {
                app.pairing_limiter.record_failure(address);
                return Err(err);
            }
        };
        let tenant = app
            .db
            .tenant_info(paired.tenant_id)
            .ok_or_else(|| ApiError::internal("a setup key of an unknown tenant"))?;
        Reply::created(Paired {
            device: paired.device,
            api_key: paired.api_key,
            tenant,
        })
    })
    .await
}

/// Paired devices with when and from where they were last seen; revoked ones last.
///
/// Roles: owner, manager.
/// Changes nothing.
#[utoipa::path(tag = "Devices", responses(
    (status = 200, body = Page<Device>), (status = 403, body = Problem)))]
#[get("/devices")]
async fn list_devices(caller: Can<perm::DevicesManage>) -> Result<Reply, ApiError> {
    let (app, tenant_id) = (caller.app.clone(), caller.tenant_id());
    run_blocking(move || {
        Reply::ok(Page {
            data: devices::list_devices(&*app.db.registry()?, tenant_id)?,
            next_cursor: None,
        })
    })
    .await
}

/// End a device's access at once: its credential and any PIN sign-in made on it.
///
/// Roles: owner, manager.
/// Revoking twice answers the device as it is. No webhook event. An event stream
/// open with the device's credential ends; opening it again is 401.
#[utoipa::path(tag = "Devices", responses(
    (status = 200, body = Device), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[post("/devices/<id>/revoke")]
async fn revoke_device(caller: Can<perm::DevicesManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "device")?;
    let (app, tenant_id) = (caller.app.clone(), caller.tenant_id());
    run_blocking(move || {
        let revoked =
            devices::revoke_device(&mut *app.db.registry()?, tenant_id, &id, app.clock.now())?;
        app.revocations.announce(&revoked.id);
        Reply::ok(revoked)
    })
    .await
}
