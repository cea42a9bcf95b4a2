//! The live event stream: Server-Sent Events carrying the tenant's envelopes as they
//! commit. `id:` is the event id; a client that reconnects with `Last-Event-ID`
//! first gets what it missed, from the outbox a page at a time, then live events.
//! Each caller receives only the events its role may read: a kitchen screen sees
//! orders, not the guest names of reservations.

use std::convert::Infallible;
use std::sync::Arc;

use rocket::request::{FromRequest, Outcome, Request};
use rocket::response::stream::{Event, EventStream};
use rocket::tokio::select;
use rocket::tokio::sync::broadcast::error::RecvError;
use rocket::tokio::sync::broadcast::Receiver;
use rocket::{get, Shutdown, State};
use rusqlite::OptionalExtension;

use crate::auth::caller::Principal;
use crate::auth::devices::Revocations;
use crate::auth::permissions::{allows, to_receive};
use crate::auth::{perm, Can};
use crate::db::{outbox_last_seq, outbox_since, run_blocking, TenantDb};
use crate::error::{ApiError, Problem};
use crate::events::bus::Committed;
use crate::App;
use uuid::Uuid;

super::group![stream_events,];

/// The `Last-Event-ID` header an EventSource sends when it reconnects.
pub struct LastEventId(Option<String>);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for LastEventId {
    type Error = Infallible;

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, Infallible> {
        Outcome::Success(LastEventId(
            req.headers().get_one("Last-Event-ID").map(str::to_string),
        ))
    }
}

/// Outbox rows read at a time while catching up, so a client resuming from long
/// ago costs one page of memory, not the whole backlog.
const CATCH_UP_PAGE: u32 = 256;

/// The next page of the tenant's outbox after `seq`. The tenant is looked up
/// for each page rather than held by the stream, so an open stream never keeps
/// a tenant's file open (a restore can close it).
async fn missed(app: Arc<App>, tenant_id: Uuid, seq: i64) -> Result<Vec<Committed>, ApiError> {
    run_blocking(move || {
        app.db
            .tenant(tenant_id)?
            .read(|conn| outbox_since(conn, tenant_id, seq, Some(CATCH_UP_PAGE)))
    })
    .await
}

/// Where the stream starts: after the event named by `Last-Event-ID` if this
/// tenant knows it, else after the newest event.
async fn start_after(tenant: Arc<TenantDb>, resume: Option<String>) -> Result<i64, ApiError> {
    run_blocking(move || {
        tenant.read(|conn| {
            let known = match resume {
                Some(event_id) => conn
                    .prepare_cached("SELECT seq FROM outbox WHERE event_id = ?1")?
                    .query_row([event_id], |r| r.get::<_, i64>(0))
                    .optional()?,
                None => None,
            };
            known.map_or_else(|| outbox_last_seq(conn), Ok)
        })
    })
    .await
}

/// Resolves when the device credential a stream was opened with is revoked;
/// never for a stream opened with a login.
async fn revoked(watch: &mut Option<(Receiver<String>, String)>) {
    match watch {
        Some((receiver, id)) => Revocations::until_revoked(receiver, id).await,
        None => std::future::pending().await,
    }
}

fn to_event(committed: &Committed) -> Event {
    Event::data(committed.body.clone()).id(committed.event_id.clone())
}

/// Stream the tenant's events (text/event-stream). Each message's data is the
/// envelope, as delivered to webhooks. Send `Last-Event-ID` to resume after that
/// event; an id this tenant does not know streams from now on.
///
/// Roles: any signed-in role.
/// Each role receives only what it may read: kitchen gets no `session.*` or
/// `reservation.*` events, host no `kitchen.*` events. Without `Last-Event-ID` the stream
/// starts with the next event. A stream opened with a device's credential ends when the
/// device is revoked.
#[utoipa::path(tag = "Events", params(
    ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id")),
    responses((status = 200, body = String, content_type = "text/event-stream",
        description = "Server-Sent Events; each data line is an envelope"),
        (status = 401, body = Problem)))]
#[get("/events/stream")]
async fn stream_events(
    caller: Can<perm::EventsStream>,
    resume: LastEventId,
    app: &State<Arc<App>>,
    mut shutdown: Shutdown,
) -> Result<EventStream![Event + 'static], ApiError> {
    // Subscribing before reading the backlog means nothing falls between the two;
    // overlap is removed by sequence number.
    let mut live = app.db.events().subscribe();
    let mut device = match &caller.principal {
        Principal::ApiKey { id } => Some((app.revocations.subscribe(), id.clone())),
        Principal::User { .. } => None,
    };
    let (app, tenant_id, role) = (app.inner().clone(), caller.tenant_id(), caller.role);
    let may_read = move |committed: &Committed| allows(role, to_receive(&committed.event));
    // Without `Last-Event-ID` the stream starts at the newest event: nothing to catch up.
    let mut behind = resume.0.is_some();
    let mut last_seq = start_after(caller.tenant.clone(), resume.0).await?;
    drop(caller);
    Ok(EventStream! {
        // Catch up a page at a time; `Lagged` below comes back here too.
        loop {
            while behind {
                let Ok(page) = missed(app.clone(), tenant_id, last_seq).await else { return };
                behind = page.len() == CATCH_UP_PAGE as usize;
                for committed in page {
                    last_seq = committed.seq;
                    if may_read(&committed) {
                        yield to_event(&committed);
                    }
                }
            }
            let committed = select! {
                received = live.recv() => match received {
                    Ok(committed) => committed,
                    // Too slow to keep up: catch up from the outbox instead.
                    Err(RecvError::Lagged(_)) => {
                        behind = true;
                        continue;
                    }
                    Err(RecvError::Closed) => break,
                },
                // The client's reconnection is then refused with 401.
                _ = revoked(&mut device) => break,
                _ = &mut shutdown => break,
            };
            if committed.tenant_id != tenant_id || committed.seq <= last_seq {
                continue;
            }
            last_seq = committed.seq;
            if may_read(&committed) {
                yield to_event(&committed);
            }
        }
    })
}
