//! The database's schema and how a connection is set up: WAL, foreign
//! keys, a busy timeout, and the migrations applied in order at open.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use super::{invalid, StoreError};

/// How long a statement waits for a lock held by another connection.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema, one step per entry, applied in order at open. The database's
/// `PRAGMA user_version` is the number of steps already applied. Never edit a
/// released step: append a new one.
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY NOT NULL,
    title      TEXT NOT NULL,
    channel    TEXT NOT NULL DEFAULT 'chat',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX sessions_by_activity ON sessions (updated_at DESC, created_at DESC);

CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content    TEXT NOT NULL,
    tool_name  TEXT,
    tool_args  TEXT,
    stopped    INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE memories (
    id         INTEGER PRIMARY KEY,
    content    TEXT NOT NULL,
    project    TEXT,
    tags       TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
CREATE INDEX memories_by_project ON memories (project, created_at);
CREATE INDEX memories_by_time ON memories (created_at);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, project, tags,
    content = 'memories',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, project, tags)
    VALUES (new.id, new.content, new.project, new.tags);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, project, tags)
    VALUES ('delete', old.id, old.content, old.project, old.tags);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, project, tags)
    VALUES ('delete', old.id, old.content, old.project, old.tags);
    INSERT INTO memories_fts (rowid, content, project, tags)
    VALUES (new.id, new.content, new.project, new.tags);
END;

CREATE TABLE reminders (
    id         INTEGER PRIMARY KEY,
    text       TEXT NOT NULL,
    due_at     TEXT NOT NULL,
    session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    done       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX reminders_pending ON reminders (done, due_at);
CREATE INDEX reminders_by_session ON reminders (session_id);
"#,
    // A tool row's outcome (SPEC 4: tool rows carry their tool_result's
    // status), the row its write made and how many its read found.
    r#"
ALTER TABLE messages ADD COLUMN status TEXT;
ALTER TABLE messages ADD COLUMN row_id INTEGER;
ALTER TABLE messages ADD COLUMN found INTEGER;
"#,
    r#"
-- How an assistant message that did not finish normally ended (SPEC §4);
-- older rows keep `stopped`, read as `ended = 'stopped'`.
ALTER TABLE messages ADD COLUMN ended TEXT;
ALTER TABLE messages ADD COLUMN error TEXT;

-- Replies being written or waiting for the user: nothing a user was told
-- about is lost when Imprint stops (see store::open_replies).
CREATE TABLE open_replies (
    reply_id    TEXT PRIMARY KEY NOT NULL,
    session_id  TEXT NOT NULL UNIQUE REFERENCES sessions (id) ON DELETE CASCADE,
    text        TEXT NOT NULL DEFAULT '',
    checkpoint  TEXT,
    question_id TEXT,
    answer      TEXT,
    last_seq    INTEGER NOT NULL DEFAULT 0,
    started_at  TEXT NOT NULL
);
"#,
    // A reminder that comes back after it fires (SPEC §4 `repeat`): kept
    // pending, its `due_at` moved to the next time (see store::reminders).
    r#"
ALTER TABLE reminders ADD COLUMN repeat TEXT
    CHECK (repeat IS NULL OR repeat IN ('daily', 'weekdays', 'weekly'));
"#,
    // Why a tool row's call did nothing (refused, repeated, not asked,
    // failed), as the user is told when its activity line is opened.
    r#"
ALTER TABLE messages ADD COLUMN reason TEXT;
"#,
    // Finding by meaning (see crate::meaning): a memory's vector, gone
    // with the memory and when its content changes; the labelled
    // examples' vectors under a key naming the model and the examples.
    r#"
CREATE TABLE memory_vectors (
    memory_id INTEGER PRIMARY KEY NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    model     TEXT NOT NULL,
    vector    BLOB NOT NULL
);
CREATE TRIGGER memory_vectors_stale AFTER UPDATE OF content ON memories
WHEN new.content IS NOT old.content BEGIN
    DELETE FROM memory_vectors WHERE memory_id = new.id;
END;
CREATE TABLE example_vectors (
    key     TEXT PRIMARY KEY NOT NULL,
    vectors BLOB NOT NULL
);
"#,
    // An import stores its memories a chunk per transaction (see
    // store::transfer); until it is done, each memory it stored is listed
    // here, so an import cut short by the process ending is taken back at
    // the next start instead of being partly kept.
    r#"
CREATE TABLE imports (
    id         INTEGER PRIMARY KEY,
    pid        INTEGER NOT NULL,
    done       INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL
);
CREATE TABLE import_rows (
    memory_id INTEGER PRIMARY KEY NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    import_id INTEGER NOT NULL REFERENCES imports (id)
);
CREATE INDEX import_rows_by_import ON import_rows (import_id);
"#,
];

pub(super) fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Answers "wal" on a file, "memory" in memory.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Applies the missing steps of [`MIGRATIONS`], each with its version bump in
/// one transaction. Safe to run again, and against another process doing the
/// same (the version is read under the write lock).
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        let applied = usize::try_from(version)
            .map_err(|_| invalid(format!("bad database schema version {version}")))?;
        if applied > MIGRATIONS.len() {
            return Err(invalid(format!(
                "the database's schema version {applied} is newer than this build's ({})",
                MIGRATIONS.len()
            )));
        }
        let Some(step) = MIGRATIONS.get(applied) else {
            return Ok(());
        };
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}
