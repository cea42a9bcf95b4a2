//! Who reacts to which event, in one place. A reaction runs inside the transaction
//! that emitted the event, so the change and everything that follows from it
//! commit or roll back together; a failing reaction fails the change.
//!
//! A group above another reacts to its events here instead of being called by it:
//! the lower group stays unaware of who builds on it.

use super::dining::sessions;
use super::event::Event;
use super::kitchen;
use super::tx::Tx;
use crate::error::ApiError;

pub fn react(tx: &mut Tx, event: &Event) -> Result<(), ApiError> {
    match event {
        // The party left: its queue ticket and its reservation are completed.
        Event::SessionClosed(session) => sessions::complete_visit(tx, session),
        // A fired order's tickets follow its lines; a cancelled one cancels them.
        Event::OrderCreated(order)
        | Event::OrderUpdated(order)
        | Event::OrderCompleted(order)
        | Event::OrderCancelled(order) => kitchen::follow_order(tx, order),
        _ => Ok(()),
    }
}
