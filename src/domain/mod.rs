//! The domain layer: the rules, types, state machines and SQL of every resource
//! group, with no HTTP in it. The API, the scheduler, the command line and the
//! demo seed all change data through the operations here.
//!
//! Groups depend one way (see `README.md` beside this file, and the architecture
//! test in `tests/api/architecture.rs`): `settings` under everything; `stations`,
//! `tables`, `staff` and `webhooks` at the bottom; `menu` above stations (items
//! name the station they cook at) and `attendance` above staff; `campaigns`
//! (discounts and coupons) above the menu and `shifts` (the schedule) above
//! attendance; `orders` above them; `dining` (queue,
//! sessions, reservations, the seatmap: the guest journey), `kitchen` and
//! `partners` (delivery platforms and payment gateways) above orders.
//! A lower group never calls a higher one; a higher group that must react to a
//! lower one's change registers for its event in `reactions.rs`.

pub mod attendance;
pub mod campaigns;
pub mod dining;
pub mod event;
pub mod kitchen;
pub mod menu;
pub mod orders;
pub mod partners;
pub mod reactions;
pub mod settings;
pub mod shifts;
pub mod staff;
pub mod stations;
pub mod tables;
pub mod tx;
pub mod validate;
pub mod webhooks;

pub use event::Event;
pub use tx::{AfterCommit, Context, Tx};

use rusqlite::Transaction;

use crate::error::ApiError;

/// Runs `work` as one write inside `sql`, with the registered reactions, and
/// returns its value with what must happen once `sql` commits. Whoever commits
/// `sql` applies the effects.
pub fn run<T>(
    sql: &Transaction,
    context: Context,
    work: impl FnOnce(&mut Tx) -> Result<T, ApiError>,
) -> Result<(T, AfterCommit), ApiError> {
    let mut tx = Tx::new(sql, context, reactions::react);
    let value = work(&mut tx)?;
    Ok((value, tx.into_after_commit()))
}
