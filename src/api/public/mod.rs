//! Customer routes, no staff login: follow a queue ticket by its token, see
//! availability and book a table. The tenant is named by its slug. Every route is
//! rate limited per client address and shows nothing personal of other guests.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rocket::request::{FromRequest, Outcome, Request};
use rocket::{get, post, State};

use crate::api::body::JsonBody;
use crate::api::reply::Reply;
use crate::api::reservations::availability_query;
use crate::db::{run_blocking, TenantDb};
use crate::domain::dining::queue;
use crate::domain::dining::reservations::{
    self, Availability, BookingReceipt, CustomerBooking, NewReservation, Party,
};
use crate::error::{remember_failure, ApiError, Problem};
use crate::App;

super::group![track_ticket, public_availability, book];

/// Requests per minute per client address on the public routes.
pub struct PublicLimiter(DefaultKeyedRateLimiter<IpAddr>);

impl PublicLimiter {
    pub fn new(per_minute: u32) -> Self {
        let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        PublicLimiter(RateLimiter::keyed(Quota::per_minute(per_minute)))
    }

    fn check(&self, address: Option<IpAddr>) -> Result<(), ApiError> {
        // Rocket always knows the peer of a TCP connection; without one there is
        // nothing to key on, and the request is refused rather than unlimited.
        let address = address.ok_or_else(|| ApiError::too_many_requests(60))?;
        let now = DefaultClock::default().now();
        let outcome = self.0.check_key(&address).map_err(|not_until| {
            ApiError::too_many_requests(not_until.wait_time_from(now).as_secs() + 1)
        });
        self.0.retain_recent();
        outcome
    }
}

/// A request within its client address's allowance. As a guard it runs before the
/// body is read, so malformed requests count too.
pub struct WithinLimit;

#[rocket::async_trait]
impl<'r> FromRequest<'r> for WithinLimit {
    type Error = ApiError;

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, Self::Error> {
        let checked = match req.rocket().state::<Arc<App>>() {
            Some(app) => app.public_limiter.check(req.client_ip()),
            None => Err(ApiError::internal("app state missing")),
        };
        match checked {
            Ok(()) => Outcome::Success(WithinLimit),
            Err(err) => {
                remember_failure(req, &err);
                Outcome::Error((err.status, err))
            }
        }
    }
}

/// The tenant named by the slug (404 when unknown).
/// The restaurant's database; opening a cold tenant's file is blocking work.
async fn tenant(app: &Arc<App>, slug: &str) -> Result<Arc<TenantDb>, ApiError> {
    let info = app
        .db
        .tenant_by_slug(slug)
        .ok_or_else(|| ApiError::not_found("restaurant"))?;
    let app = app.clone();
    run_blocking(move || app.db.tenant(info.id)).await
}

/// A queue ticket's status, position and estimated wait; nothing else.
///
/// Public: no sign-in.
/// The token is the `tracking_token` given when the ticket was created. Limited per
/// client address (429 with `Retry-After`).
#[utoipa::path(tag = "Queue", security(()), responses(
    (status = 200, body = crate::domain::dining::queue::PublicTicket), (status = 404, body = Problem), (status = 429, body = Problem)))]
#[get("/public/<tenant_slug>/queue/<ticket_token>")]
async fn track_ticket(
    app: &State<Arc<App>>,
    _limit: WithinLimit,
    tenant_slug: &str,
    ticket_token: &str,
) -> Result<Reply, ApiError> {
    let db = tenant(app, tenant_slug).await?;
    let token = ticket_token.to_string();
    let now = app.clock.now();
    run_blocking(move || db.read(|conn| Reply::ok(queue::public_ticket(conn, &token, now)?))).await
}

/// Bookable slots of a local day for a party.
///
/// Public: no sign-in.
/// `date` and `party_size` are both required. Limited per client address (429 with
/// `Retry-After`).
#[utoipa::path(tag = "Reservations", security(()), responses(
    (status = 200, body = Availability), (status = 404, body = Problem), (status = 422, body = Problem),
    (status = 429, body = Problem)))]
#[get("/public/<tenant_slug>/availability?<date>&<party_size>")]
async fn public_availability(
    app: &State<Arc<App>>,
    _limit: WithinLimit,
    tenant_slug: &str,
    date: Option<&str>,
    party_size: Option<&str>,
) -> Result<Reply, ApiError> {
    let db = tenant(app, tenant_slug).await?;
    let (date, party_size) = availability_query(date, party_size)?;
    let now = app.clock.now();
    run_blocking(move || {
        db.read(|conn| Reply::ok(reservations::availability(conn, date, party_size, now)?))
    })
    .await
}

/// Book a table: pending until the restaurant confirms, or confirmed at once when
/// it confirms automatically.
///
/// Public: no sign-in.
/// Answers only the id, status, party size and time. Emits `reservation.created`, then
/// `reservation.confirmed` when confirmed at once. Limited per client address (429 with
/// `Retry-After`).
#[utoipa::path(tag = "Reservations", security(()), request_body = CustomerBooking, responses(
    (status = 201, body = BookingReceipt), (status = 404, body = Problem), (status = 409, body = Problem, description = "The slot is full. Codes: `slot_full`"),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/public/<tenant_slug>/reservations", data = "<body>")]
async fn book(
    app: &State<Arc<App>>,
    _limit: WithinLimit,
    tenant_slug: &str,
    body: JsonBody<CustomerBooking>,
) -> Result<Reply, ApiError> {
    let db = tenant(app, tenant_slug).await?;
    let booking = NewReservation::from(body.value);
    app.write_queued(&db, "guest".to_string(), move |tx| {
        let reservation = reservations::create_reservation(tx, &booking, Party::Customer)?;
        Reply::created(BookingReceipt {
            id: reservation.id,
            status: reservation.status,
            party_size: reservation.party_size,
            starts_at: reservation.starts_at,
        })
    })
    .await
}
