//! The backups of a backup dir: folders named by their start time
//! (`20300102T030405.123Z`, which sorts as the time does), each with a manifest.

use std::path::Path;

use chrono::{DateTime, NaiveDateTime, Utc};

use super::Manifest;

const FORMAT: &str = "%Y%m%dT%H%M%S%.3fZ";

/// A backup folder's name for a backup started at `at`.
pub fn folder_name(at: DateTime<Utc>) -> String {
    at.format(FORMAT).to_string()
}

/// When the backup of folder `name` started, if `name` is a backup folder's name.
pub fn started_at(name: &str) -> Option<DateTime<Utc>> {
    // The parser also takes shorter fields and leading spaces; only the exact
    // form backups are named with is a backup's name.
    let at = NaiveDateTime::parse_from_str(name, FORMAT).ok()?.and_utc();
    (folder_name(at) == name).then_some(at)
}

/// The complete backups under `root` (those with a readable manifest), newest first.
pub fn list(root: &Path) -> Vec<(String, Manifest)> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut backups: Vec<(String, Manifest)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            started_at(&name)?;
            Some((name, Manifest::read(&entry.path()).ok()?))
        })
        .collect();
    backups.sort_by(|a, b| b.0.cmp(&a.0));
    backups
}

/// Removes all but the newest `keep` backups under `root`; returns how many went.
pub fn prune(root: &Path, keep: usize) -> Result<usize, String> {
    let mut removed = 0;
    for (name, _) in list(root).into_iter().skip(keep) {
        let folder = root.join(&name);
        std::fs::remove_dir_all(&folder)
            .map_err(|e| format!("cannot remove the old backup {}: {e}", folder.display()))?;
        removed += 1;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn names_sort_as_their_times_and_read_back() {
        let early = Utc.with_ymd_and_hms(2030, 1, 2, 3, 4, 5).unwrap();
        let late = early + chrono::Duration::milliseconds(1500);
        assert_eq!(folder_name(early), "20300102T030405.000Z");
        assert!(folder_name(early) < folder_name(late));
        assert_eq!(started_at(&folder_name(late)), Some(late));
        for not_a_backup in ["pre-upgrade", "20300102T030405.000Z.partial", "x"] {
            assert_eq!(started_at(not_a_backup), None, "{not_a_backup}");
        }
    }
}
