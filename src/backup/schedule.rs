//! The server's own backups: with a backup dir set, a backup of the registry and
//! every tenant every `backup_every` (24 h by default), keeping the newest
//! `backup_keep`. The state of the last one is kept for the notifications
//! summary, which reports a failed backup, or one older than twice the interval.
//!
//! [`run_due`] takes its `now` as a parameter: the thread passes the wall
//! clock, tests their own.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use super::{folders, take, Progress};
use crate::{lock, App, Config};

/// After a failed backup the next try comes this soon, or at the interval if
/// that is sooner.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(3600);
/// The backup thread looks whether a backup is due this often at most.
const TICK: Duration = Duration::from_secs(60);

/// What is known of the scheduled backups.
#[derive(Debug, Clone, Default)]
pub struct BackupState {
    /// When the newest backup in the backup dir was started.
    pub last_success_at: Option<DateTime<Utc>>,
    /// When the last scheduled backup was tried, and why it failed if it did.
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// The scheduled backups' settings and state, kept in the app.
pub struct BackupSchedule {
    dir: Option<PathBuf>,
    every: Duration,
    keep: usize,
    state: Mutex<BackupState>,
    /// Held through a scheduled backup, so two never run at once.
    running: Mutex<()>,
}

impl BackupSchedule {
    /// The schedule of `config`; the newest backup already in the backup dir
    /// counts as the last one, so a restart does not back up again at once.
    pub fn new(config: &Config) -> BackupSchedule {
        let last_success_at = config.backup_dir.as_deref().and_then(|dir| {
            folders::list(dir)
                .first()
                .and_then(|(name, _)| folders::started_at(name))
        });
        BackupSchedule {
            dir: config.backup_dir.clone(),
            every: config.backup_every,
            keep: config.backup_keep.max(1),
            state: Mutex::new(BackupState {
                last_success_at,
                ..BackupState::default()
            }),
            running: Mutex::new(()),
        }
    }

    pub fn state(&self) -> BackupState {
        lock(&self.state).clone()
    }

    /// How often the thread should look: the tick, or the interval if shorter.
    pub fn tick(&self) -> Duration {
        self.every.min(TICK)
    }

    pub fn is_enabled(&self) -> bool {
        self.dir.is_some()
    }
}

/// When the next backup is due: at once when none was made, an interval after
/// the last success, and sooner after a failure.
pub fn next_due(state: &BackupState, every: Duration) -> Option<DateTime<Utc>> {
    let interval = |d: Duration| chrono::Duration::from_std(d).unwrap_or(chrono::TimeDelta::MAX);
    match (
        &state.last_error,
        state.last_attempt_at,
        state.last_success_at,
    ) {
        (Some(_), Some(attempt), _) => Some(attempt + interval(every.min(RETRY_AFTER_FAILURE))),
        (_, _, Some(success)) => Some(success + interval(every)),
        _ => None,
    }
}

/// Takes a backup if one is due at `now`, then removes all but the newest
/// `keep`. Returns the new backup's folder, or the error, when one was tried.
pub fn run_due(app: &App, now: DateTime<Utc>) -> Option<Result<PathBuf, String>> {
    let schedule = &app.backups;
    let dir = schedule.dir.as_ref()?;
    let _running = lock(&schedule.running);
    if next_due(&schedule.state(), schedule.every).is_some_and(|due| due > now) {
        return None;
    }
    let outcome = take(&app.db, dir, None, now, &Progress::hidden())
        .and_then(|(folder, _)| folders::prune(dir, schedule.keep).map(|_| folder));
    let mut state = lock(&schedule.state);
    state.last_attempt_at = Some(now);
    match &outcome {
        Ok(_) => {
            state.last_success_at = Some(now);
            state.last_error = None;
        }
        Err(err) => {
            log::error!("scheduled backup failed: {err}");
            state.last_error = Some(err.clone());
        }
    }
    Some(outcome)
}

/// The backup pass, as the backup thread runs it.
pub fn backup_pass(app: &App, now: DateTime<Utc>) {
    run_due(app, now);
}

/// What the notifications summary says of backups that need attention.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BackupProblem {
    /// `failed`: the last scheduled backup failed; `overdue`: the newest backup
    /// is older than twice the interval.
    pub problem: &'static str,
    pub last_success_at: Option<String>,
    pub detail: String,
}

/// Whether the scheduled backups need attention at `now`; `None` when they are
/// fine or not set up.
pub fn problem(app: &App, now: DateTime<Utc>) -> Option<BackupProblem> {
    let schedule = &app.backups;
    schedule.dir.as_ref()?;
    problem_of(&schedule.state(), schedule.every, now)
}

/// A failed last backup, or a newest backup older than twice `every`. Before
/// the first backup has been tried there is nothing to report.
fn problem_of(state: &BackupState, every: Duration, now: DateTime<Utc>) -> Option<BackupProblem> {
    let last_success_at = state.last_success_at.map(crate::time::rfc3339);
    if let Some(error) = &state.last_error {
        return Some(BackupProblem {
            problem: "failed",
            last_success_at,
            detail: format!("the last scheduled backup failed: {error}"),
        });
    }
    let last = state.last_success_at?;
    let limit = chrono::Duration::from_std(every * 2).ok()?;
    (now - last > limit).then(|| BackupProblem {
        problem: "overdue",
        last_success_at,
        detail: "no backup has been made for more than twice the backup interval".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_next_backup_is_due_now_then_an_interval_after_a_success_and_sooner_after_a_failure() {
        let day = Duration::from_secs(24 * 3600);
        let at = Utc.with_ymd_and_hms(2030, 1, 2, 3, 0, 0).unwrap();
        assert_eq!(next_due(&BackupState::default(), day), None);
        let succeeded = BackupState {
            last_success_at: Some(at),
            last_attempt_at: Some(at),
            last_error: None,
        };
        assert_eq!(
            next_due(&succeeded, day),
            Some(at + chrono::Duration::hours(24))
        );
        let failed = BackupState {
            last_attempt_at: Some(at + chrono::Duration::hours(24)),
            last_error: Some("disk full".into()),
            ..succeeded
        };
        assert_eq!(
            next_due(&failed, day),
            Some(at + chrono::Duration::hours(25))
        );
        let every_ten_minutes = Duration::from_secs(600);
        assert_eq!(
            next_due(&failed, every_ten_minutes),
            Some(at + chrono::Duration::minutes(24 * 60 + 10))
        );
    }

    #[test]
    fn a_failed_backup_or_one_older_than_two_intervals_needs_attention() {
        let day = Duration::from_secs(24 * 3600);
        let at = Utc.with_ymd_and_hms(2030, 1, 2, 3, 0, 0).unwrap();
        let hours = chrono::Duration::hours;
        assert!(problem_of(&BackupState::default(), day, at).is_none());
        let succeeded = BackupState {
            last_success_at: Some(at),
            last_attempt_at: Some(at),
            last_error: None,
        };
        assert!(problem_of(&succeeded, day, at + hours(48)).is_none());
        let overdue = problem_of(&succeeded, day, at + hours(49)).unwrap();
        assert_eq!(overdue.problem, "overdue");
        assert_eq!(
            overdue.last_success_at.as_deref(),
            Some("2030-01-02T03:00:00.000Z")
        );
        let failed = BackupState {
            last_attempt_at: Some(at + hours(24)),
            last_error: Some("disk full".into()),
            ..succeeded
        };
        let reported = problem_of(&failed, day, at + hours(25)).unwrap();
        assert_eq!(reported.problem, "failed");
        assert!(reported.detail.contains("disk full"), "{}", reported.detail);
    }
}
