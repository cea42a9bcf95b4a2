//! The write context every domain operation takes: the SQLite transaction with
//! who is acting, for which tenant, at what time, and the tenant's settings read
//! at most once.
//!
//! `emit` is the one way a change is announced. It writes the event's outbox row
//! (so a committed change always has its event and a rolled-back one never does),
//! runs the reactions registered for it in the same transaction, and notes what
//! must happen once the transaction commits. The caller that committed applies
//! those effects; delivery and the live stream pick up outbox rows by themselves.

use std::cell::OnceCell;
use std::ops::Deref;

use chrono::{DateTime, Utc};
use rusqlite::Transaction;
use uuid::Uuid;

use super::event::Event;
use super::settings::{self, Settings, SettingsPatch, TenantSettings};
use crate::error::ApiError;
use crate::events::outbox;
use crate::time::rfc3339;

/// Runs what reacts to an event, inside the transaction that emitted it.
pub type Reactions = fn(&mut Tx, &Event) -> Result<(), ApiError>;

/// Who writes, for which tenant, and when.
#[derive(Debug, Clone)]
pub struct Context {
    pub tenant_id: Uuid,
    /// Stable identifier of who acted (`user:<id>`, `api_key:<id>`, `system:<what>`),
    /// stored with the records they create.
    pub actor: String,
    pub now: DateTime<Utc>,
}

/// What must happen once the transaction has committed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AfterCommit {
    /// Deadlines the scheduler keeps (reservation no-shows) may have moved.
    pub reschedule: bool,
    /// Delivery state changed without an event (endpoint, retry): look again.
    pub wake_delivery: bool,
}

pub struct Tx<'a> {
    sql: &'a Transaction<'a>,
    context: Context,
    now_text: String,
    settings: OnceCell<TenantSettings>,
    reactions: Reactions,
    after_commit: AfterCommit,
}

impl<'a> Tx<'a> {
    pub fn new(sql: &'a Transaction<'a>, context: Context, reactions: Reactions) -> Self {
        Tx {
            sql,
            now_text: rfc3339(context.now),
            context,
            settings: OnceCell::new(),
            reactions,
            after_commit: AfterCommit::default(),
        }
    }

    pub fn tenant_id(&self) -> Uuid {
        self.context.tenant_id
    }

    pub fn actor(&self) -> &str {
        &self.context.actor
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.context.now
    }

    /// `now` as stored and shown: RFC 3339 UTC with milliseconds.
    pub fn now_text(&self) -> &str {
        &self.now_text
    }

    /// The tenant's settings, read once per transaction.
    pub fn settings(&self) -> Result<&TenantSettings, ApiError> {
        if let Some(settings) = self.settings.get() {
            return Ok(settings);
        }
        let loaded = settings::load(self.sql)?;
        Ok(self.settings.get_or_init(|| loaded))
    }

    /// Digits after the decimal point of the tenant's currency.
    pub fn exponent(&self) -> Result<u32, ApiError> {
        Ok(self.settings()?.exponent())
    }

    /// Changes the tenant's settings: later reads in this transaction see the new
    /// values, and the scheduler looks at the tenant again after commit (the grace
    /// window moves every no-show deadline).
    pub fn update_settings(&mut self, patch: &SettingsPatch) -> Result<Settings, ApiError> {
        let view = settings::update_settings(self.sql, patch)?;
        self.settings = OnceCell::new();
        self.after_commit.reschedule = true;
        Ok(view)
    }

    /// Records `event`: its outbox row for delivery, then every reaction to it, all
    /// in this transaction. Returns the event id.
    pub fn emit(&mut self, event: Event) -> Result<String, ApiError> {
        let event_id = outbox::enqueue(
            self.sql,
            self.context.tenant_id,
            event.name(),
            &self.now_text,
            event.data()?,
        )?;
        self.after_commit.reschedule |= event.moves_deadlines();
        (self.reactions)(self, &event)?;
        Ok(event_id)
    }

    /// Deadlines the scheduler keeps may have moved by a change that emits nothing.
    pub fn reschedule(&mut self) {
        self.after_commit.reschedule = true;
    }

    /// Delivery state changed by something other than a new event.
    pub fn wake_delivery(&mut self) {
        self.after_commit.wake_delivery = true;
    }

    pub fn into_after_commit(self) -> AfterCommit {
        self.after_commit
    }
}

/// Plain SQL goes straight to the transaction.
impl<'a> Deref for Tx<'a> {
    type Target = Transaction<'a>;

    fn deref(&self) -> &Transaction<'a> {
        self.sql
    }
}
