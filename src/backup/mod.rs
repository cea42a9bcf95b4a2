//! Backups and restores of the data dir, taken and made while the server serves.
//!
//! - `manifest`: what a backup holds, with each file's size, SHA-256 and schema.
//! - `create`: taking a consistent backup of the registry and tenant files.
//! - `folders`: the backups of a backup dir, by name, and pruning the old ones.
//! - `verify`: checksums and `integrity_check` of every file of a backup.
//! - `restore`: restoring with the server stopped, or one tenant while it runs.
//! - `schedule`: the server's own backups at an interval, keeping the newest N.
//! - `progress`: the progress bars the command line shows.
//!
//! A backup is a folder named by its start time (`20300102T030405.123Z`) with
//! the data dir's layout: `manifest.json`, `registry.db`, `tenants/<id>.db`.

pub mod create;
pub mod folders;
pub mod manifest;
mod progress;
pub mod restore;
pub mod schedule;
pub mod verify;

pub use create::take;
pub use manifest::Manifest;
pub use progress::Progress;
pub use restore::{restore_stopped, restore_tenant_live};
pub use verify::verify;
