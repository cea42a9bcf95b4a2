//! The data dir's lock: a running server holds an exclusive lock on
//! `<data dir>/brigade.lock`, so a restore that replaces files can tell the
//! server is running and refuse instead of pulling files from under it. The
//! operating system drops the lock when the process ends, a crash included.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

const LOCK_FILE: &str = "brigade.lock";

/// Held while a server serves the data dir, or while a restore replaces its files.
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

impl DataDirLock {
    /// Takes the data dir's lock, or says that something else holds it.
    pub fn acquire(data_dir: &Path) -> Result<DataDirLock, String> {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| format!("cannot create data dir {}: {e}", data_dir.display()))?;
        let path = data_dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(DataDirLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(format!(
                "the data dir {} is in use by a running Brigade server (or a restore)",
                data_dir.display()
            )),
            Err(TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataDirLock::acquire(dir.path()).unwrap();
        let refused = DataDirLock::acquire(dir.path()).unwrap_err();
        assert!(refused.contains("in use"), "{refused}");
        drop(first);
        DataDirLock::acquire(dir.path()).unwrap();
    }
}
