//! Messages partners push to the box: delivery platforms and payment gateways
//! call `POST /webhook/{kind}/{tenant_slug}/{name}`. The route verifies a
//! message with its platform's adapter and stores it in the tenant's inbox
//! before answering; the inbox worker carries it out afterwards, with retries,
//! across restarts.

pub mod adapters;
pub mod receive;
pub mod sealing;
pub mod worker;

use std::net::IpAddr;
use std::sync::mpsc::Sender;
use std::sync::Mutex;
use std::time::Duration;

use uuid::Uuid;

use crate::auth::rate_limit::FailureLimiter;
use sealing::Sealer;

/// Refused messages one address may send in [`REJECTION_WINDOW`] before every
/// message from it is refused (429) for the rest of the window.
pub const REJECTIONS_ALLOWED: u32 = 20;
pub const REJECTION_WINDOW: Duration = Duration::from_secs(10 * 60);

/// What the receiving routes and the worker share.
pub struct Inbound {
    pub sealer: Sealer,
    /// Refused messages, per sending address.
    pub rejections: FailureLimiter<IpAddr>,
    /// Tells the running worker a tenant has a new message.
    wake: Mutex<Option<Sender<Uuid>>>,
}

impl Inbound {
    pub fn new(secret_key: &[u8]) -> Inbound {
        Inbound {
            sealer: Sealer::new(secret_key),
            rejections: FailureLimiter::new(REJECTIONS_ALLOWED, REJECTION_WINDOW),
            wake: Mutex::new(None),
        }
    }

    /// Wakes the worker for `tenant_id`; without a running worker the message
    /// waits for the next start.
    pub fn wake(&self, tenant_id: Uuid) {
        if let Some(sender) = crate::lock(&self.wake).as_ref() {
            let _ = sender.send(tenant_id);
        }
    }

    /// Makes [`wake`](Self::wake) reach the worker listening on `sender`'s channel.
    fn listen(&self, sender: Sender<Uuid>) {
        *crate::lock(&self.wake) = Some(sender);
    }

    /// Closes the worker's channel, which ends it.
    fn stop_listening(&self) {
        crate::lock(&self.wake).take();
    }
}
