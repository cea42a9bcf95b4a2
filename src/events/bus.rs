//! What happens after a transaction that wrote events commits: the delivery
//! dispatcher is woken for that tenant, and the envelopes go out on an in-process
//! broadcast that feeds the live event streams.

use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use rocket::tokio::sync::broadcast;
use uuid::Uuid;

/// Live subscribers that fall this far behind miss messages and replay from the outbox.
const LIVE_CAPACITY: usize = 1024;

/// One committed event, as stored in the outbox.
#[derive(Debug, Clone)]
pub struct Committed {
    pub tenant_id: Uuid,
    pub seq: i64,
    pub event_id: String,
    /// The event's name, as in the envelope's `event` field.
    pub event: String,
    pub body: String,
}

/// Tenants whose delivery state changed since the dispatcher last looked.
#[derive(Default)]
pub struct Wakeups {
    pub tenants: HashSet<Uuid>,
    pub stop: bool,
}

pub struct EventBus {
    wakeups: Mutex<Wakeups>,
    signal: Condvar,
    live: broadcast::Sender<Arc<Committed>>,
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus {
            wakeups: Mutex::new(Wakeups::default()),
            signal: Condvar::new(),
            live: broadcast::channel(LIVE_CAPACITY).0,
        }
    }
}

impl EventBus {
    /// Announces events that have just been committed.
    pub fn committed(&self, tenant_id: Uuid, events: Vec<Committed>) {
        for event in events {
            // No subscriber is not an error: nobody is watching the stream.
            let _ = self.live.send(Arc::new(event));
        }
        self.wake(tenant_id);
    }

    /// Asks the dispatcher to look at a tenant's deliveries again.
    pub fn wake(&self, tenant_id: Uuid) {
        if let Ok(mut wakeups) = self.wakeups.lock() {
            wakeups.tenants.insert(tenant_id);
            self.signal.notify_all();
        }
    }

    pub fn stop(&self) {
        if let Ok(mut wakeups) = self.wakeups.lock() {
            wakeups.stop = true;
            self.signal.notify_all();
        }
    }

    /// Waits until woken or `timeout` passes, then takes the woken tenants.
    /// Returns `None` once stopped.
    pub fn wait(&self, timeout: Duration) -> Option<HashSet<Uuid>> {
        let wakeups = self.wakeups.lock().ok()?;
        let mut wakeups = if wakeups.tenants.is_empty() && !wakeups.stop {
            self.signal.wait_timeout(wakeups, timeout).ok()?.0
        } else {
            wakeups
        };
        if wakeups.stop {
            return None;
        }
        Some(std::mem::take(&mut wakeups.tenants))
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Committed>> {
        self.live.subscribe()
    }
}
