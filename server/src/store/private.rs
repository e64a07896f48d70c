//! The data folder and the database files, readable by their owner only:
//! the folder 0700 and `imprint.sqlite3` with its `-wal` and `-shm` 0600
//! from the moment they exist. SQLite gives the `-wal` and `-shm` files
//! the mode of the database file, so creating that one 0600 before SQLite
//! opens it covers all three. A folder or a file found with wider rights
//! (made by an older version) is narrowed at start.

use std::path::Path;

/// The data folder's mode.
pub const DIR_MODE: u32 = 0o700;
/// The database files' mode.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and its missing parents) with [`DIR_MODE`], or narrows
/// it to that when it exists with wider rights.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if !dir.is_dir() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(DIR_MODE)
                .create(dir)?;
        }
        let mode = std::fs::metadata(dir)?.permissions().mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))?;
            tracing::info!(dir = %dir.display(), "the data folder is now readable by its owner only");
        }
        Ok(())
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Creates the database file empty with [`FILE_MODE`] if it is missing
/// (SQLite reads an empty file as a new database), and narrows it, its
/// `-wal` and its `-shm` when they have wider rights.
pub fn private_database(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(FILE_MODE)
            .open(path)?;
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let file = Path::new(&name);
            match std::fs::metadata(file) {
                Ok(meta) if meta.permissions().mode() & 0o077 != 0 => {
                    std::fs::set_permissions(file, std::fs::Permissions::from_mode(FILE_MODE))?;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    let _ = path;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::store::{NewMemory, Store};
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[tokio::test]
    async fn a_new_data_folder_and_its_database_are_its_owners_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("new/imprint");
        let db = dir.join("imprint.sqlite3");
        let store = Store::open(&db).unwrap();
        store
            .add_memory(NewMemory {
                content: "the door code is 4711".into(),
                ..NewMemory::default()
            })
            .await
            .unwrap();
        assert_eq!(mode(&dir), DIR_MODE);
        for suffix in ["", "-wal", "-shm"] {
            let file = dir.join(format!("imprint.sqlite3{suffix}"));
            assert!(file.exists(), "{}", file.display());
            assert_eq!(mode(&file), FILE_MODE, "{}", file.display());
        }
    }

    #[tokio::test]
    async fn an_existing_folder_and_files_are_narrowed_at_start() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("old");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let db = dir.join("imprint.sqlite3");
        drop(Store::open(&db).unwrap());
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let _store = Store::open(&db).unwrap();
        assert_eq!(mode(&dir), DIR_MODE);
        assert_eq!(mode(&db), FILE_MODE);
    }
}
