//! The store's tests: the worker thread, the schema, and each table group
//! against a real SQLite database (in memory or in a temporary folder).

use std::time::Duration;

use app::protocol::{Ended, Role, SessionSummary};
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use super::memories::{fts_query, MAX_QUERY_TERMS};
use super::schema::{migrate, MIGRATIONS};
use super::*;

fn mem() -> Store {
    Store::open_in_memory().expect("open in memory")
}

fn file_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("nested/dir/imprint.db")).expect("open");
    (dir, store)
}

fn memory(content: &str, project: Option<&str>, at: &str) -> NewMemory {
    NewMemory {
        content: content.into(),
        project: project.map(Into::into),
        tags: vec![],
        created_at: Some(at.into()),
    }
}

fn q(query: &str) -> MemoryQuery {
    MemoryQuery {
        query: query.into(),
        ..Default::default()
    }
}

async fn pragma<T: rusqlite::types::FromSql + Send + 'static>(store: &Store, name: &str) -> T {
    let sql = format!("PRAGMA {name}");
    store
        .call(move |c| Ok(c.query_row(&sql, [], |r| r.get(0))?))
        .await
        .expect("pragma")
}

async fn count(store: &Store, sql: &'static str) -> i64 {
    store
        .call(move |c| Ok(c.query_row(sql, [], |r| r.get(0))?))
        .await
        .expect("count")
}

#[test]
fn store_is_a_shareable_handle() {
    fn check<T: Clone + Send + Sync + 'static>() {}
    check::<Store>();
}

#[tokio::test]
async fn writes_past_the_checkpoint_threshold_are_all_kept() {
    // About 6 MB of memories: the WAL crosses its checkpoint threshold
    // several times, so the checkpointer runs beside the writes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imprint.db");
    let store = Store::open(&path).unwrap();
    let filler = "word ".repeat(800);
    for i in 0..1_500 {
        store
            .add_memory(memory(&format!("note{i} {filler}"), None, "2024-01-01"))
            .await
            .unwrap();
    }
    drop(store);
    let store = Store::open(&path).unwrap();
    let count: i64 = store
        .call(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM memories", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(count, 1_500);
    assert_eq!(store.search_memories(q("note1499")).await.unwrap().len(), 1);
    let integrity: String = store
        .call(|conn| Ok(conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(integrity, "ok");
}

#[tokio::test]
async fn migrations_are_idempotent_on_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/imprint.db");
    let store = Store::open(&path).unwrap();
    let s = store.create_session(None, "chat").await.unwrap();
    store
        .append_message(&s.id, NewMessage::user("hello"))
        .await
        .unwrap();
    store
        .add_memory(memory("kept across opens", None, "2024-01-01"))
        .await
        .unwrap();
    assert_eq!(
        pragma::<i64>(&store, "user_version").await,
        MIGRATIONS.len() as i64
    );
    drop(store);

    for _ in 0..2 {
        let store = Store::open(&path).unwrap();
        assert_eq!(
            pragma::<i64>(&store, "user_version").await,
            MIGRATIONS.len() as i64
        );
        let (summary, messages) = store.get_session(&s.id).await.unwrap().unwrap();
        assert_eq!(summary.title, "hello");
        assert_eq!(messages.len(), 1);
        assert_eq!(store.search_memories(q("kept")).await.unwrap().len(), 1);
        // Running the migrations again by hand changes nothing.
        store.call(migrate).await.unwrap();
        assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 1);
    }
}

#[tokio::test]
async fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imprint.db");
    let store = Store::open(&path).unwrap();
    store
        .call(|c| Ok(c.pragma_update(None, "user_version", 99)?))
        .await
        .unwrap();
    drop(store);
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Invalid(m) if m.contains("newer")));
}

#[tokio::test]
async fn file_database_uses_wal_and_foreign_keys() {
    let (_dir, store) = file_store();
    assert_eq!(pragma::<String>(&store, "journal_mode").await, "wal");
    assert_eq!(pragma::<i64>(&store, "foreign_keys").await, 1);
    assert_eq!(pragma::<i64>(&store, "synchronous").await, 1); // NORMAL
    assert_eq!(pragma::<i64>(&store, "busy_timeout").await, 5000);
}

#[tokio::test]
async fn the_thread_ends_when_every_handle_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imprint.db");
    let store = Store::open(&path).unwrap();
    let other = store.clone();
    store.create_session(None, "chat").await.unwrap();
    let wal = dir.path().join("imprint.db-wal");
    assert!(wal.exists());
    drop(store);
    other.list_sessions().await.unwrap(); // still open through the clone
    drop(other);
    // Closing the last connection checkpoints and removes the WAL file.
    let mut gone = false;
    for _ in 0..200 {
        if !wal.exists() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(gone, "the connection was not closed");
}

#[tokio::test]
async fn create_session_titles_and_channels() {
    let store = mem();
    let a = store.create_session(None, "chat").await.unwrap();
    assert_eq!(a.title, DEFAULT_TITLE);
    assert_eq!(a.message_count, 0);
    assert!(!a.waiting);
    assert_eq!(a.created_at, a.updated_at);
    assert!(a.created_at.ends_with('Z') && a.created_at.len() == 24);
    assert!(uuid::Uuid::parse_str(&a.id).is_ok());
    let b = store
        .create_session(Some("  \n ".into()), "")
        .await
        .unwrap();
    assert_eq!(b.title, DEFAULT_TITLE);
    let long = "x".repeat(100);
    let c = store
        .create_session(Some(format!("  {long}  ")), "telegram")
        .await
        .unwrap();
    assert_eq!(c.title, "x".repeat(60));
    let d = store
        .create_session(Some(" Trip plans ".into()), "chat")
        .await
        .unwrap();
    assert_eq!(d.title, "Trip plans");
    let channels: Vec<String> = store
        .call(|c| {
            let mut stmt = c.prepare("SELECT channel FROM sessions ORDER BY rowid")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
        .unwrap();
    assert_eq!(channels, ["chat", "chat", "telegram", "chat"]);
}

#[tokio::test]
async fn first_user_message_names_the_session() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    // Neither an assistant message nor a blank user message names it.
    store
        .append_message(&s.id, NewMessage::assistant("Hi! How can I help?"))
        .await
        .unwrap();
    store
        .append_message(&s.id, NewMessage::user("  \n\t\n"))
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title, DEFAULT_TITLE);

    store
        .append_message(
            &s.id,
            NewMessage::user("\n\n   Plan the trip to Lyon   \nwith details\n"),
        )
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title, "Plan the trip to Lyon");

    // Later user messages do not rename it.
    store
        .append_message(&s.id, NewMessage::user("something else"))
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title, "Plan the trip to Lyon");
}

#[tokio::test]
async fn long_and_non_ascii_titles_are_cut_on_char_boundaries() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let text = "é🦀日".repeat(30); // 90 chars, many bytes each
    store
        .append_message(&s.id, NewMessage::user(text.clone()))
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title.chars().count(), 60);
    assert_eq!(summary.title, text.chars().take(60).collect::<String>());

    // A cut that lands on a space does not leave it dangling.
    let s = store.create_session(None, "chat").await.unwrap();
    let text = format!("{} tail", "a".repeat(59));
    store
        .append_message(&s.id, NewMessage::user(text))
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title, "a".repeat(59));
}

#[tokio::test]
async fn a_renamed_session_keeps_its_title() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let renamed = store
        .rename_session(&s.id, "  My errands \n second line")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(renamed.title, "My errands");
    assert_eq!(renamed.updated_at, s.updated_at);
    store
        .append_message(&s.id, NewMessage::user("buy milk"))
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title, "My errands");

    // Renamed back to the default after a user message: still not taken
    // from later messages.
    store.rename_session(&s.id, DEFAULT_TITLE).await.unwrap();
    store
        .append_message(&s.id, NewMessage::user("buy bread"))
        .await
        .unwrap();
    let (summary, _) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.title, DEFAULT_TITLE);

    let err = store.rename_session(&s.id, "   ").await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)));
    assert!(store.rename_session("nope", "x").await.unwrap().is_none());
}

#[tokio::test]
async fn a_tool_rows_outcome_round_trips() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let set = NewMessage::tool("remind", json!({"text": "Call Anna"}), "Reminder #4 set")
        .with_outcome(ToolOutcome {
            status: app::protocol::ToolStatus::Done,
            row_id: Some(4),
            found: None,
            reason: None,
        });
    let refused =
        NewMessage::tool("store", json!({"content": "x"}), "Not done").with_outcome(ToolOutcome {
            status: app::protocol::ToolStatus::Refused,
            row_id: None,
            found: None,
            reason: Some(app::protocol::CallReason::SaveUnasked),
        });
    let read =
        NewMessage::tool("search", json!({"query": "tea"}), "3 found").with_outcome(ToolOutcome {
            status: app::protocol::ToolStatus::Done,
            row_id: None,
            found: Some(3),
            reason: None,
        });
    let appended = store
        .append_messages(&s.id, vec![set, refused, read, NewMessage::user("hi")])
        .await
        .unwrap();
    let (_, messages) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(messages, appended);
    let outcomes: Vec<_> = messages
        .iter()
        .map(|m| (m.status, m.row_id, m.found, m.reason.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (Some(app::protocol::ToolStatus::Done), Some(4), None, None),
            (
                Some(app::protocol::ToolStatus::Refused),
                None,
                None,
                Some(app::protocol::CallReason::SaveUnasked)
            ),
            (Some(app::protocol::ToolStatus::Done), None, Some(3), None),
            (None, None, None, None),
        ]
    );
    let stored: String = store
        .call(|c| {
            Ok(c.query_row(
                "SELECT reason FROM messages WHERE reason IS NOT NULL",
                [],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(stored, "\"save_unasked\"", "one spelling in the row");
}

/// A tool row stored before reasons were typed holds the reason's words:
/// it reads back as those words, shown as they were.
#[tokio::test]
async fn a_tool_row_with_an_old_worded_reason_reads_as_its_words() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let refused =
        NewMessage::tool("store", json!({"content": "x"}), "Not done").with_outcome(ToolOutcome {
            status: app::protocol::ToolStatus::Refused,
            row_id: None,
            found: None,
            reason: Some(app::protocol::CallReason::SaveUnasked),
        });
    store.append_messages(&s.id, vec![refused]).await.unwrap();
    let old = "You didn't ask to save anything.";
    store
        .call(move |c| Ok(c.execute("UPDATE messages SET reason = ?1", [old])?))
        .await
        .unwrap();
    let (_, messages) = store.get_session(&s.id).await.unwrap().unwrap();
    let reason = messages[0].reason.clone().expect("a reason");
    assert_eq!(reason, app::protocol::CallReason::Words(old.into()));
    assert_eq!(reason.words(), old);
}

/// Question rows stored before the outcome's spelling was settled say
/// `timeout`: they still read as timed out, on the page and for the model,
/// and today's rows are written `timed_out`.
#[tokio::test]
async fn a_question_row_with_the_old_timeout_spelling_reads_as_timed_out() {
    use app::logic::reply::{history_entries, CardState, HistoryEntry, ReplyItem};
    use app::protocol::QuestionOutcome;

    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let question = |outcome: Value| {
        NewMessage::tool(
            "ask_user",
            json!({"question": "Which project?", "options": ["Imprint", "Billing"],
                "allow_other": true, "question_id": "q_1", "outcome": outcome}),
            "No answer came from the user within 30 minutes.",
        )
    };
    store
        .append_messages(
            &s.id,
            vec![
                question(json!("timeout")),
                question(json!(QuestionOutcome::TimedOut)),
            ],
        )
        .await
        .unwrap();
    let (_, messages) = store.get_session(&s.id).await.unwrap().unwrap();
    let outcomes: Vec<_> = messages
        .iter()
        .map(|m| m.tool_args.as_ref().and_then(|a| a.get("outcome")))
        .collect();
    assert_eq!(outcomes[1], Some(&json!("timed_out")));
    for outcome in outcomes {
        assert_eq!(
            QuestionOutcome::read(outcome),
            Some(QuestionOutcome::TimedOut)
        );
    }
    for entry in history_entries(&messages) {
        let HistoryEntry::Item(ReplyItem::Question { state, .. }) = entry else {
            panic!("{entry:?}")
        };
        assert_eq!(state, CardState::TimedOut);
    }
    // Not an answer: the model reads what the row says, not "The user
    // answered: …".
    let results: Vec<_> = crate::replies::history_to_messages(&messages)
        .into_iter()
        .filter_map(|message| match message {
            crate::models::ChatMessage::Tool { content, .. } => Some(content),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results.iter().all(|c| c.starts_with("No answer came")));
}

#[tokio::test]
async fn messages_get_increasing_seqs_and_round_trip() {
    let store = mem();
    let s = store
        .create_session(Some("t".into()), "chat")
        .await
        .unwrap();
    let m1 = store
        .append_message(&s.id, NewMessage::user("what is on today?"))
        .await
        .unwrap();
    let mut tool = NewMessage::tool("calendar", json!({"day": "today"}), "2 events");
    tool.content = "2 events".into();
    let m2 = store.append_message(&s.id, tool).await.unwrap();
    let mut reply = NewMessage::assistant("You have two");
    reply.ended = Some(Ended::Stopped);
    let m3 = store.append_message(&s.id, reply).await.unwrap();
    assert_eq!((m1.seq, m2.seq, m3.seq), (1, 2, 3));
    assert!(m1.created_at < m2.created_at && m2.created_at < m3.created_at);

    let (summary, messages) = store.get_session(&s.id).await.unwrap().unwrap();
    assert_eq!(summary.message_count, 3);
    assert_eq!(summary.updated_at, m3.created_at);
    assert_eq!(messages, vec![m1, m2.clone(), m3.clone()]);
    assert_eq!(m2.role, Role::Tool);
    assert_eq!(m2.tool_name.as_deref(), Some("calendar"));
    assert_eq!(m2.tool_args, Some(json!({"day": "today"})));
    assert_eq!(m3.ended, Some(Ended::Stopped));

    // Seqs are per session.
    let other = store.create_session(None, "chat").await.unwrap();
    let first = store
        .append_message(&other.id, NewMessage::user("hi"))
        .await
        .unwrap();
    assert_eq!(first.seq, 1);

    let err = store
        .append_message("no-such-session", NewMessage::user("hi"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(m) if m == "unknown session"));
    assert!(store
        .get_session("no-such-session")
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn concurrent_appends_get_distinct_seqs() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let store = store.clone();
        let id = s.id.clone();
        tasks.push(tokio::spawn(async move {
            store
                .append_message(&id, NewMessage::assistant(format!("m{i}")))
                .await
                .unwrap()
                .seq
        }));
    }
    let mut seqs = Vec::new();
    for t in tasks {
        seqs.push(t.await.unwrap());
    }
    seqs.sort();
    assert_eq!(seqs, (1..=20).collect::<Vec<i64>>());
}

#[tokio::test]
async fn sessions_are_listed_most_recent_first() {
    let (_dir, store) = file_store();
    let a = store
        .create_session(Some("a".into()), "chat")
        .await
        .unwrap();
    let b = store
        .create_session(Some("b".into()), "chat")
        .await
        .unwrap();
    let c = store
        .create_session(Some("c".into()), "chat")
        .await
        .unwrap();
    let ids = |list: Vec<SessionSummary>| list.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.list_sessions().await.unwrap()),
        [c.id.clone(), b.id.clone(), a.id.clone()]
    );
    store
        .append_message(&a.id, NewMessage::user("bump"))
        .await
        .unwrap();
    let list = store.list_sessions().await.unwrap();
    assert_eq!(list[0].message_count, 1);
    assert_eq!(list[0].title, "a");
    assert_eq!(ids(list), [a.id, c.id, b.id]);
}

#[tokio::test]
async fn deleting_a_session_cascades() {
    let (_dir, store) = file_store();
    let s = store.create_session(None, "chat").await.unwrap();
    let keep = store.create_session(None, "chat").await.unwrap();
    store
        .append_messages(
            &s.id,
            vec![NewMessage::user("one"), NewMessage::assistant("two")],
        )
        .await
        .unwrap();
    store
        .append_message(&keep.id, NewMessage::user("kept"))
        .await
        .unwrap();
    let due = Utc.with_ymd_and_hms(2030, 1, 1, 9, 0, 0).unwrap();
    let r = store
        .add_reminder("call mum", due, Some(s.id.clone()))
        .await
        .unwrap();
    assert_eq!(r.session_id.as_deref(), Some(s.id.as_str()));

    assert!(store.delete_session(&s.id).await.unwrap());
    assert!(!store.delete_session(&s.id).await.unwrap());
    assert!(store.get_session(&s.id).await.unwrap().is_none());
    assert_eq!(count(&store, "SELECT COUNT(*) FROM messages").await, 1);
    let reminders = store.list_reminders().await.unwrap();
    assert_eq!(reminders.len(), 1);
    assert_eq!(reminders[0].session_id, None);
    assert_eq!(store.list_sessions().await.unwrap().len(), 1);
}

#[tokio::test]
async fn append_messages_is_all_or_nothing() {
    let store = mem();
    let err = store
        .append_messages(
            "missing",
            vec![NewMessage::user("a"), NewMessage::assistant("b")],
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(m) if m == "unknown session"));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM messages").await, 0);

    let s = store.create_session(None, "chat").await.unwrap();
    // Make the second message of a batch fail inside the transaction.
    store
        .call(|c| {
            c.execute_batch(
                "CREATE TRIGGER boom BEFORE INSERT ON messages
                     WHEN new.content = 'boom'
                     BEGIN SELECT RAISE(ABORT, 'boom'); END;",
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let err = store
        .append_messages(
            &s.id,
            vec![
                NewMessage::user("first question"),
                NewMessage::assistant("boom"),
            ],
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Sqlite(_)));
    let (summary, messages) = store.get_session(&s.id).await.unwrap().unwrap();
    assert!(messages.is_empty());
    assert_eq!(summary.title, DEFAULT_TITLE);
    assert_eq!(summary.updated_at, s.updated_at);

    let ok = store
        .append_messages(
            &s.id,
            vec![
                NewMessage::user("first question"),
                NewMessage::assistant("answer"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(ok.iter().map(|m| m.seq).collect::<Vec<_>>(), [1, 2]);
    assert!(store
        .append_messages(&s.id, vec![])
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn add_memory_normalizes_and_validates() {
    let store = mem();
    let m = store
        .add_memory(NewMemory {
            content: "  likes green tea  ".into(),
            project: Some("  ".into()),
            tags: vec![" food ".into(), "".into(), "Food".into(), "drink".into()],
            created_at: Some("2024-03-05".into()),
        })
        .await
        .unwrap();
    assert_eq!(m.content, "likes green tea");
    assert_eq!(m.project, None);
    assert_eq!(m.tags, ["food", "drink"]);
    assert_eq!(m.created_at, "2024-03-05T00:00:00.000Z");

    let m = store
        .add_memory(memory("x", Some("p"), "2024-03-05T10:00:00+02:00"))
        .await
        .unwrap();
    assert_eq!(m.created_at, "2024-03-05T08:00:00.000Z");
    let m = store
        .add_memory(memory("y", None, "2024-03-05T10:00:00.123456Z"))
        .await
        .unwrap();
    assert_eq!(m.created_at, "2024-03-05T10:00:00.123Z");

    let now = store
        .add_memory(NewMemory {
            content: "now".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(DateTime::parse_from_rfc3339(&now.created_at).is_ok());

    for bad in [
        "yesterday",
        "2024-02-30",
        "2024-3-5",
        "20240305",
        "+12024-01-01",
    ] {
        let err = store.add_memory(memory("z", None, bad)).await.unwrap_err();
        assert!(
            matches!(&err, StoreError::Invalid(m) if m.contains("created_at")),
            "{bad}: {err}"
        );
    }
    let err = store
        .add_memory(memory(" \n ", None, "2024-01-01"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 3 + 1);
}

#[tokio::test]
async fn search_ranks_the_more_relevant_memory_first() {
    let store = mem();
    store
        .import_memories(vec![
            memory("Went hiking in the Alps with Sam", None, "2024-01-01"),
            memory(
                "SQLite WAL mode lets readers run during a write; SQLite checkpoints the WAL",
                Some("imprint"),
                "2024-01-02",
            ),
            memory("Tried a new SQLite GUI", None, "2024-01-03"),
            memory("Tomatoes need more sun in the garden", None, "2024-01-04"),
        ])
        .await
        .unwrap();
    let hits = store
        .search_memories(q("sqlite wal checkpoint"))
        .await
        .unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits[0].content.starts_with("SQLite WAL"));
    assert_eq!(hits[0].project.as_deref(), Some("imprint"));
    assert!(hits[1].content.contains("GUI"));

    // Stemming and diacritics: "gardens" finds "garden", "Alpes" no,
    // "hike" finds "hiking", "tomates" no; "sûn" finds "sun".
    assert_eq!(store.search_memories(q("gardens")).await.unwrap().len(), 1);
    assert_eq!(store.search_memories(q("hike")).await.unwrap().len(), 1);
    assert_eq!(store.search_memories(q("sûn")).await.unwrap().len(), 1);
    assert!(store
        .search_memories(q("bicycle"))
        .await
        .unwrap()
        .is_empty());

    // Tags are searched too.
    store
        .add_memory(NewMemory {
            content: "Bought a present".into(),
            tags: vec!["birthday".into()],
            ..Default::default()
        })
        .await
        .unwrap();
    let hits = store.search_memories(q("birthday")).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].tags, ["birthday"]);
}

#[tokio::test]
async fn search_filters_by_project_and_time() {
    let (_dir, store) = file_store();
    store
        .import_memories(vec![
            memory("note alpha", Some("Imprint"), "2024-05-01T08:00:00Z"),
            memory("note beta", Some("imprint"), "2024-05-02T23:59:59.999Z"),
            memory("note gamma", Some("Garden"), "2024-05-03T00:00:00Z"),
            memory("note delta", None, "2024-05-04T12:00:00Z"),
        ])
        .await
        .unwrap();
    let contents = |hits: Vec<MemoryHit>| {
        let mut c: Vec<String> = hits.into_iter().map(|h| h.content).collect();
        c.sort();
        c
    };
    let query = |project: Option<&str>, since: Option<&str>, until: Option<&str>| MemoryQuery {
        query: "note".into(),
        project: project.map(Into::into),
        since: since.map(Into::into),
        until: until.map(Into::into),
        limit: None,
    };

    let hits = store
        .search_memories(query(Some("IMPRINT"), None, None))
        .await
        .unwrap();
    assert_eq!(contents(hits.clone()), ["note alpha", "note beta"]);
    // The project keeps the spelling it was first stored with.
    assert!(hits.iter().all(|h| h.project.as_deref() == Some("Imprint")));
    assert!(store
        .search_memories(query(Some("Impr"), None, None))
        .await
        .unwrap()
        .is_empty());

    // A plain-date until includes that whole day.
    let hits = store
        .search_memories(query(None, None, Some("2024-05-02")))
        .await
        .unwrap();
    assert_eq!(contents(hits), ["note alpha", "note beta"]);
    let hits = store
        .search_memories(query(None, Some("2024-05-02"), Some("2024-05-03")))
        .await
        .unwrap();
    assert_eq!(contents(hits), ["note beta", "note gamma"]);
    // An RFC 3339 until is inclusive of that instant.
    let hits = store
        .search_memories(query(None, None, Some("2024-05-03T00:00:00Z")))
        .await
        .unwrap();
    assert_eq!(contents(hits), ["note alpha", "note beta", "note gamma"]);
    let hits = store
        .search_memories(query(None, Some("2024-05-03T02:00:00+02:00"), None))
        .await
        .unwrap();
    assert_eq!(contents(hits), ["note delta", "note gamma"]);
    let hits = store
        .search_memories(query(Some("garden"), Some("2024-05-04"), None))
        .await
        .unwrap();
    assert!(hits.is_empty());

    // Filters without a query list the newest first.
    let hits = store
        .search_memories(MemoryQuery {
            project: Some("imprint".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(
        hits.iter().map(|h| h.content.as_str()).collect::<Vec<_>>(),
        ["note beta", "note alpha"]
    );

    for (since, until) in [(Some("last week"), None), (None, Some("2024-13-01"))] {
        let err = store
            .search_memories(query(None, since, until))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)), "{err}");
    }
}

#[tokio::test]
async fn search_limit_defaults_to_10_and_caps_at_50() {
    let store = mem();
    let many = (0..60)
        .map(|i| memory(&format!("coffee note {i}"), None, "2024-01-01"))
        .collect();
    assert_eq!(store.import_memories(many).await.unwrap(), 60);
    assert_eq!(store.search_memories(q("coffee")).await.unwrap().len(), 10);
    let mut query = q("coffee");
    query.limit = Some(500);
    assert_eq!(
        store.search_memories(query.clone()).await.unwrap().len(),
        50
    );
    query.limit = Some(3);
    assert_eq!(store.search_memories(query.clone()).await.unwrap().len(), 3);
    query.limit = Some(0);
    assert!(store.search_memories(query).await.unwrap().is_empty());
}

#[tokio::test]
async fn fts_syntax_in_queries_is_plain_text() {
    let store = mem();
    store
        .add_memory(memory(
            "Don't forget: the C++ talk (room 4) - bring the \"notes\" OR slides",
            None,
            "2024-01-01",
        ))
        .await
        .unwrap();
    for text in [
        "\"",
        "*",
        "OR",
        "(",
        "-",
        "AND",
        "NOT",
        "NEAR(",
        "a OR",
        "OR b",
        "\"unterminated",
        "foo\"bar",
        "title:talk",
        "^start",
        "prefix*",
        "-minus",
        "(room",
        "+",
        "{col1 col2}: x",
        "¹²³",
        "🦀",
        "",
        "   ",
        "a\u{0}b",
        "NEAR(talk room, 2)",
    ] {
        let result = store.search_memories(q(text)).await;
        assert!(result.is_ok(), "{text:?}: {result:?}");
    }
    let hits = store.search_memories(q("(room")).await.unwrap();
    assert_eq!(hits.len(), 1);
    let hits = store.search_memories(q("\"notes\"")).await.unwrap();
    assert_eq!(hits.len(), 1);
    let hits = store.search_memories(q("don't")).await.unwrap();
    assert_eq!(hits.len(), 1);
    let hits = store.search_memories(q("OR")).await.unwrap();
    assert_eq!(hits.len(), 1); // the word "or" itself
    assert!(store
        .search_memories(q("-zebra*"))
        .await
        .unwrap()
        .is_empty());
}

#[test]
fn fts_query_quotes_every_word() {
    assert_eq!(fts_query("a b").as_deref(), Some("\"a\" OR \"b\""));
    assert_eq!(
        fts_query("say \"hi\"").as_deref(),
        Some("\"say\" OR \"\"\"hi\"\"\"")
    );
    assert_eq!(fts_query("x X x").as_deref(), Some("\"x\""));
    assert_eq!(fts_query(" - ( * \" "), None);
    let long = (0..100)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(
        fts_query(&long).map(|q| q.matches(" OR ").count()),
        Some(MAX_QUERY_TERMS - 1)
    );
}

#[tokio::test]
async fn import_is_all_or_nothing() {
    let store = mem();
    let err = store
        .import_memories(vec![
            memory("one", Some("p"), "2024-01-01"),
            memory("two", Some("p"), "not a date"),
            memory("three", Some("p"), "2024-01-03"),
        ])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::Invalid(m) if m.contains("memory 1") && m.contains("created_at")),
        "{err}"
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 0);
    assert!(store.list_projects().await.unwrap().is_empty());

    // A failure inside the transaction rolls back the earlier rows too.
    store
        .call(|c| {
            c.execute_batch(
                "CREATE TRIGGER boom BEFORE INSERT ON memories
                     WHEN new.content = 'boom'
                     BEGIN SELECT RAISE(ABORT, 'boom'); END;",
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let err = store
        .import_memories(vec![
            memory("fine", None, "2024-01-01"),
            memory("boom", None, "2024-01-02"),
        ])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Sqlite(_)));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM memories").await, 0);
    assert!(store.search_memories(q("fine")).await.unwrap().is_empty());

    let n = store
        .import_memories(vec![
            memory("one", Some("p"), "2024-01-01"),
            memory("two", Some("p"), "2024-01-02"),
        ])
        .await
        .unwrap();
    assert_eq!(n, 2);
    assert_eq!(store.search_memories(q("two")).await.unwrap().len(), 1);
}

#[tokio::test]
async fn projects_are_counted_with_their_time_ranges() {
    let store = mem();
    store
        .import_memories(vec![
            memory("a1", Some("Alpha"), "2024-01-10"),
            memory("a2", Some("alpha"), "2024-03-01T12:00:00Z"),
            memory("a3", Some(" ALPHA "), "2024-02-01"),
            memory("b1", Some("Beta"), "2024-04-01"),
            memory("g1", Some("Gamma"), "2023-06-01"),
            memory("g2", Some("Gamma"), "2023-07-01"),
            memory("n1", None, "2025-01-01"),
        ])
        .await
        .unwrap();
    let projects = store.list_projects().await.unwrap();
    assert_eq!(
        projects,
        vec![
            ProjectInfo {
                name: "Beta".into(),
                count: 1,
                first_at: "2024-04-01T00:00:00.000Z".into(),
                last_at: "2024-04-01T00:00:00.000Z".into(),
            },
            ProjectInfo {
                name: "Alpha".into(),
                count: 3,
                first_at: "2024-01-10T00:00:00.000Z".into(),
                last_at: "2024-03-01T12:00:00.000Z".into(),
            },
            ProjectInfo {
                name: "Gamma".into(),
                count: 2,
                first_at: "2023-06-01T00:00:00.000Z".into(),
                last_at: "2023-07-01T00:00:00.000Z".into(),
            },
        ]
    );
    // A later add joins the existing project whatever its case.
    let m = store
        .add_memory(memory("g3", Some("gAMMA"), "2026-01-01"))
        .await
        .unwrap();
    assert_eq!(m.project.as_deref(), Some("Gamma"));
    let projects = store.list_projects().await.unwrap();
    assert_eq!(projects[0].name, "Gamma");
    assert_eq!(projects[0].count, 3);
}

#[tokio::test]
async fn a_reminder_row_that_cannot_be_read_is_skipped_reported_and_blocks_nothing() {
    let (_dir, store) = file_store();
    let t = |h: u32| Utc.with_ymd_and_hms(2030, 6, 1, h, 0, 0).unwrap();
    // Rows an older version (or a hand) wrote: a five-digit year sorts
    // before every real time; a time that is no time at all.
    store
        .call(|conn| {
            conn.execute_batch(
                "INSERT INTO reminders (text, due_at, created_at, done)
                 VALUES ('far', '+13434-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', 0),
                        ('junk', 'soon', '2030-01-01T00:00:00.000Z', 0)",
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let good = store.add_reminder("good", t(9), None).await.unwrap();
    assert_eq!(store.next_pending_due().await.unwrap(), Some(t(9)));
    let (readable, unreadable) = store
        .reminders_with(Some(app::protocol::ReminderStatus::Upcoming))
        .await
        .unwrap();
    assert_eq!(readable.iter().map(|r| r.id).collect::<Vec<_>>(), [good.id]);
    assert_eq!(unreadable.len(), 2);
    assert!(
        unreadable[0].problem.contains("+13434"),
        "{:?}",
        unreadable[0]
    );
    let taken = store.take_due(t(10)).await.unwrap();
    assert_eq!(taken.iter().map(|r| r.id).collect::<Vec<_>>(), [good.id]);
    assert_eq!(store.next_pending_due().await.unwrap(), None);
    let far = unreadable[0].id;
    let err = store.get_reminder(far).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert!(store.delete_reminder(far).await.unwrap());
    // And nothing new can be stored past the year 9999.
    let beyond = Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap();
    let err = store.add_reminder("x", beyond, None).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

#[tokio::test]
async fn reminders_are_taken_once_when_due() {
    let (_dir, store) = file_store();
    let t = |h: u32, m: u32| Utc.with_ymd_and_hms(2030, 6, 1, h, m, 0).unwrap();
    assert_eq!(store.next_pending_due().await.unwrap(), None);
    assert!(store.take_due(t(23, 0)).await.unwrap().is_empty());

    let late = store
        .add_reminder(String::from("late"), t(12, 0), None)
        .await
        .unwrap();
    let early = store.add_reminder(" early ", t(9, 0), None).await.unwrap();
    let mid = store.add_reminder("mid", t(10, 30), None).await.unwrap();
    assert_eq!(early.text, "early");
    assert_eq!(early.due_at, "2030-06-01T09:00:00.000Z");
    assert!(!early.done);
    assert_eq!(store.next_pending_due().await.unwrap(), Some(t(9, 0)));
    let listed = store.list_reminders().await.unwrap();
    assert_eq!(
        listed.iter().map(|r| r.id).collect::<Vec<_>>(),
        [early.id, mid.id, late.id]
    );

    assert!(store.take_due(t(8, 59)).await.unwrap().is_empty());
    let taken = store.take_due(t(10, 30)).await.unwrap();
    assert_eq!(
        taken.iter().map(|r| r.id).collect::<Vec<_>>(),
        [early.id, mid.id]
    );
    assert!(taken.iter().all(|r| r.done));
    assert!(store.take_due(t(10, 30)).await.unwrap().is_empty());
    assert_eq!(store.next_pending_due().await.unwrap(), Some(t(12, 0)));

    let taken = store.take_due(t(23, 0)).await.unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].id, late.id);
    assert_eq!(store.next_pending_due().await.unwrap(), None);
    let listed = store.list_reminders().await.unwrap();
    assert!(listed.iter().all(|r| r.done));
    assert_eq!(listed.len(), 3);

    let err = store
        .add_reminder("x", t(1, 0), Some("missing".into()))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(m) if m == "unknown session"));
    let err = store.add_reminder("  ", t(1, 0), None).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)));
}

#[tokio::test]
async fn a_panicking_call_does_not_close_the_store() {
    let store = mem();
    let err = store
        .call(|_| -> Result<(), StoreError> { panic!("bug in a closure") })
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Closed));
    // A closure that leaves a transaction open has it rolled back.
    store
        .call(|c| {
            c.execute_batch("BEGIN; INSERT INTO sessions VALUES ('x', 't', 'chat', '', '');")?;
            Ok(())
        })
        .await
        .unwrap();
    assert!(store.list_sessions().await.unwrap().is_empty());
    store.create_session(None, "chat").await.unwrap();
    assert_eq!(store.list_sessions().await.unwrap().len(), 1);
}

async fn page(store: &Store, query: MemoryPageQuery) -> Listed {
    store.list_memories(query).await.expect("list")
}

#[tokio::test]
async fn memories_page_newest_first_to_the_end_with_none_lost_or_repeated() {
    let store = mem();
    // Pairs share a time, so paging must also order by id.
    let batch = (0..45)
        .map(|i| {
            memory(
                &format!("note {i}"),
                None,
                &format!("2026-01-{:02}", i / 2 + 1),
            )
        })
        .collect();
    store.import_memories(batch).await.unwrap();
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let listed = page(
            &store,
            MemoryPageQuery {
                cursor: cursor.clone(),
                limit: Some(10),
                ..Default::default()
            },
        )
        .await;
        seen.extend(listed.memories.iter().map(|m| (m.created_at.clone(), m.id)));
        match listed.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen.len(), 45);
    let mut sorted = seen.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, sorted, "newest first, ties by id, no repeats");
    sorted.dedup();
    assert_eq!(sorted.len(), 45);

    let bad = store
        .list_memories(MemoryPageQuery {
            cursor: Some("nonsense".into()),
            ..Default::default()
        })
        .await;
    assert!(matches!(bad, Err(StoreError::Invalid(_))));
    let too_big = store
        .list_memories(MemoryPageQuery {
            limit: Some(MAX_PAGE_SIZE + 1),
            ..Default::default()
        })
        .await;
    assert!(matches!(too_big, Err(StoreError::Invalid(_))));
}

#[tokio::test]
async fn a_searched_page_ranks_as_the_search_tool_does() {
    let store = mem();
    let batch = (0..30)
        .map(|i| {
            let words = if i % 3 == 0 {
                "tea tea tea"
            } else {
                "tea and cake"
            };
            memory(&format!("{words} {i}"), Some("Home"), "2026-02-01")
        })
        .collect();
    store.import_memories(batch).await.unwrap();
    let tool: Vec<i64> = store
        .search_memories(MemoryQuery {
            query: "tea".into(),
            limit: Some(MAX_SEARCH_LIMIT),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    let mut paged = Vec::new();
    let mut cursor = None;
    loop {
        let listed = page(
            &store,
            MemoryPageQuery {
                query: Some("tea".into()),
                project: Some("home".into()),
                cursor: cursor.clone(),
                limit: Some(7),
            },
        )
        .await;
        paged.extend(listed.memories.iter().map(|m| m.id));
        match listed.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(paged, tool);
    let none = page(
        &store,
        MemoryPageQuery {
            query: Some("tea".into()),
            project: Some("Work".into()),
            ..Default::default()
        },
    )
    .await;
    assert!(none.memories.is_empty() && none.next_cursor.is_none());
}

#[tokio::test]
async fn a_memory_is_edited_deleted_and_put_back_with_its_id() {
    let store = mem();
    let first = store
        .add_memory(memory("tea with Anna", Some("Home"), "2026-03-01"))
        .await
        .unwrap();
    let edited = store
        .update_memory(
            first.id,
            MemoryChange {
                content: Some(" coffee with Anna ".into()),
                project: Some(None),
                tags: Some(vec!["a".into(), "A".into(), " ".into()]),
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(edited.content, "coffee with Anna");
    assert_eq!(edited.project, None);
    assert_eq!(edited.tags, ["a"]);
    assert_eq!(
        store.get_memory(first.id).await.unwrap(),
        Some(edited.clone())
    );
    assert_eq!(contents_of(&store, "coffee").await, ["coffee with Anna"]);
    assert!(
        contents_of(&store, "tea").await.is_empty(),
        "the index follows"
    );
    let blank = MemoryChange {
        content: Some("  ".into()),
        ..Default::default()
    };
    assert!(matches!(
        store.update_memory(first.id, blank).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(
        store
            .update_memory(999, MemoryChange::default())
            .await
            .unwrap(),
        None
    );

    let deleted = store.delete_memory(first.id).await.unwrap().unwrap();
    assert_eq!(deleted, edited);
    assert_eq!(store.delete_memory(first.id).await.unwrap(), None);
    assert!(contents_of(&store, "coffee").await.is_empty());
    let back = store
        .restore_memory(
            deleted.id,
            NewMemory {
                content: deleted.content.clone(),
                project: deleted.project.clone(),
                tags: deleted.tags.clone(),
                created_at: Some(deleted.created_at.clone()),
            },
        )
        .await
        .unwrap();
    assert_eq!(back, deleted);
    assert_eq!(contents_of(&store, "coffee").await, ["coffee with Anna"]);
    let twice = store
        .restore_memory(deleted.id, memory("x", None, "2026-01-01"))
        .await;
    assert!(matches!(twice, Err(StoreError::Invalid(_))));
}

async fn contents_of(store: &Store, query: &str) -> Vec<String> {
    store
        .search_memories(q(query))
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect()
}

#[tokio::test]
async fn a_project_is_renamed_or_merged_into_another() {
    let store = mem();
    for (content, project) in [("a", "Alpha"), ("b", "alpha"), ("c", "Beta")] {
        store
            .add_memory(memory(content, Some(project), "2026-04-01"))
            .await
            .unwrap();
    }
    assert_eq!(store.move_project("ALPHA", "Gamma").await.unwrap(), 2);
    assert_eq!(store.move_project("Beta", "gamma").await.unwrap(), 1);
    let projects = store.list_projects().await.unwrap();
    assert_eq!(projects.len(), 1);
    assert_eq!((projects[0].name.as_str(), projects[0].count), ("Gamma", 3));
    assert_eq!(store.move_project("Nowhere", "X").await.unwrap(), 0);
    assert!(matches!(
        store.move_project("Gamma", " ").await,
        Err(StoreError::Invalid(_))
    ));
    // A change of case alone is a rename.
    assert_eq!(store.move_project("gamma", "GAMMA").await.unwrap(), 3);
    assert_eq!(store.list_projects().await.unwrap()[0].name, "GAMMA");
}

#[tokio::test]
async fn reminders_are_listed_by_status_edited_and_deleted() {
    use app::protocol::{ReminderStatus, Repeat};
    let store = mem();
    let t = |d: u32| Utc.with_ymd_and_hms(2030, 6, d, 9, 0, 0).unwrap();
    let one = store.add_reminder("one", t(1), None).await.unwrap();
    let two = store
        .add_reminder_repeating("two", t(2), None, Some(Repeat::Weekly))
        .await
        .unwrap();
    assert_eq!(two.repeat, Some(Repeat::Weekly));
    let done = store
        .update_reminder(
            one.id,
            ReminderChange {
                done: Some(true),
                text: Some("one, done".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert!(done.done);
    let ids = |rs: Vec<app::protocol::Reminder>| rs.into_iter().map(|r| r.id).collect::<Vec<_>>();
    let upcoming = store.reminders_with(Some(ReminderStatus::Upcoming)).await;
    assert_eq!(ids(upcoming.unwrap().0), [two.id]);
    let finished = store.reminders_with(Some(ReminderStatus::Done)).await;
    assert_eq!(ids(finished.unwrap().0), [one.id]);
    let moved = store
        .update_reminder(
            two.id,
            ReminderChange {
                due_at: Some(t(5)),
                repeat: Some(None),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (moved.due_at.as_str(), moved.repeat),
        ("2030-06-05T09:00:00.000Z", None)
    );
    assert_eq!(store.get_reminder(two.id).await.unwrap(), Some(moved));
    assert!(store.delete_reminder(two.id).await.unwrap());
    assert!(!store.delete_reminder(two.id).await.unwrap());
    assert_eq!(
        store
            .update_reminder(two.id, ReminderChange::default())
            .await
            .unwrap(),
        None
    );
    let blank = ReminderChange {
        text: Some(" ".into()),
        ..Default::default()
    };
    assert!(matches!(
        store.update_reminder(one.id, blank).await,
        Err(StoreError::Invalid(_))
    ));
}

#[tokio::test]
async fn a_repeating_reminder_fires_and_comes_back_at_its_next_time() {
    use app::protocol::Repeat;
    let store = mem();
    let due = Utc.with_ymd_and_hms(2030, 6, 3, 9, 0, 0).unwrap();
    let daily = store
        .add_reminder_repeating("stretch", due, None, Some(Repeat::Daily))
        .await
        .unwrap();
    let fired = store.take_due(due).await.unwrap();
    assert_eq!(fired.len(), 1);
    assert_eq!((fired[0].id, fired[0].done), (daily.id, false));
    assert_eq!(fired[0].due_at, daily.due_at, "it fired at its time");
    let next = store.next_pending_due().await.unwrap().unwrap();
    assert_eq!(next, next_time(due, Repeat::Daily, due, &chrono::Local));
    assert!(next > due);
    assert!(
        store.take_due(due).await.unwrap().is_empty(),
        "once per time"
    );
    assert_eq!(store.take_due(next).await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_session_page_is_the_newest_messages_before_its_cursor_with_the_count_before_it() {
    let store = mem();
    let s = store.create_session(None, "chat").await.unwrap();
    let notes: Vec<NewMessage> = (1..=25)
        .map(|n| NewMessage::user(format!("note {n}")))
        .collect();
    store.append_messages(&s.id, notes).await.unwrap();

    let (summary, newest, older) = store
        .get_session_page(&s.id, None, 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(summary.message_count, 25);
    let seqs = |page: &[app::protocol::Message]| page.iter().map(|m| m.seq).collect::<Vec<_>>();
    assert_eq!(seqs(&newest), (16..=25).collect::<Vec<_>>());
    assert_eq!(newest[0].content, "note 16");
    assert_eq!(older, 15);

    let (_, page, older) = store
        .get_session_page(&s.id, Some(16), 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seqs(&page), (6..=15).collect::<Vec<_>>());
    assert_eq!(older, 5);
    let (_, page, older) = store
        .get_session_page(&s.id, Some(6), 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seqs(&page), (1..=5).collect::<Vec<_>>());
    assert_eq!(older, 0);
    let (_, page, older) = store
        .get_session_page(&s.id, Some(1), 10)
        .await
        .unwrap()
        .unwrap();
    assert!(page.is_empty());
    assert_eq!(older, 0);

    let empty = store.create_session(None, "chat").await.unwrap();
    let (_, page, older) = store
        .get_session_page(&empty.id, None, 10)
        .await
        .unwrap()
        .unwrap();
    assert!(page.is_empty());
    assert_eq!(older, 0);
    assert!(store
        .get_session_page("no-such-session", None, 10)
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn a_session_page_is_read_by_the_session_and_seq_key_not_a_scan() {
    let store = mem();
    let plans = store
        .call(|conn| {
            let mut plans = Vec::new();
            for sql in [super::sessions::PAGE_SELECT, super::sessions::OLDER_COUNT] {
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let values: [&dyn rusqlite::ToSql; 3] = [&"sid", &100_i64, &60_i64];
                let bound = &values[..stmt.parameter_count()];
                let details = stmt
                    .query_map(bound, |row| row.get::<_, String>(3))?
                    .collect::<Result<Vec<_>, _>>()?;
                plans.push(details.join("; "));
            }
            Ok(plans)
        })
        .await
        .unwrap();
    for plan in plans {
        assert!(
            plan.contains("SEARCH messages USING") && plan.contains("seq<?"),
            "{plan}"
        );
        assert!(!plan.contains("SCAN"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }
}

#[tokio::test]
async fn a_misspelt_word_is_matched_to_the_word_the_memories_hold() {
    let store = Store::open_in_memory().unwrap();
    for content in [
        "My dentist is Dr. Helena Marsh, phone 020 7946 0321",
        "Wi-Fi password at home is Marmalade!Otter42",
        "Next appointment: 14 January",
    ] {
        store
            .add_memory(memory(content, None, "2026-11-01T10:00:00Z"))
            .await
            .unwrap();
    }
    let words = [
        "dentsit",
        "passport",
        "dentist",
        "appointmnet",
        "phnoe",
        "marhs",
    ]
    .map(String::from)
    .to_vec();
    let like = store.words_like(words).await.unwrap();
    assert_eq!(like[0].as_deref(), Some("dentist"), "two letters swapped");
    assert_eq!(like[1], None, "passport is two slips from password");
    assert_eq!(like[2], None, "a word the memories hold is not corrected");
    assert_eq!(like[3], None, "held as the stem appoint");
    assert_eq!(like[4].as_deref(), Some("phone"), "one swap");
    assert_eq!(like[5].as_deref(), Some("marsh"));
}

#[tokio::test]
async fn an_import_cut_short_by_the_process_ending_is_taken_back_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imprint.db");
    let store = Store::open(&path).unwrap();
    let cut_short = store.begin_import().await.unwrap();
    let imported = |i: usize| memory(&format!("imported {i}"), Some("Home"), "2024-01-01");
    store
        .insert_chunk(cut_short, (0..3).map(imported).collect())
        .await
        .unwrap();
    store
        .add_memory(memory("written beside it", None, "2024-01-02"))
        .await
        .unwrap();
    store
        .insert_chunk(cut_short, (3..5).map(imported).collect())
        .await
        .unwrap();
    // A second import, done: its memories are kept though its list was
    // never cleared (the process ended right after it was marked done).
    let done = store.begin_import().await.unwrap();
    store
        .insert_chunk(done, vec![memory("imported and done", None, "2024-01-03")])
        .await
        .unwrap();
    store
        .call(|c| {
            Ok(c.execute(
                "UPDATE imports SET done = 1 WHERE done = 0 AND id = (SELECT MAX(id) FROM imports)",
                [],
            )?)
        })
        .await
        .unwrap();
    assert_eq!(store.pending_imports().await.unwrap(), [(cut_short, 5)]);
    // The process ends here: nothing finishes or takes back the import.
    drop(store);

    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.all_contents().await.unwrap(),
        ["written beside it", "imported and done"]
    );
    assert_eq!(count(&store, "SELECT COUNT(*) FROM imports").await, 0);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM import_rows").await, 0);
    assert!(store.search_memories(q("imported")).await.unwrap().len() == 1);
}

#[cfg(unix)]
#[tokio::test]
async fn an_import_another_running_process_began_is_left_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imprint.db");
    let store = Store::open(&path).unwrap();
    let import = store.begin_import().await.unwrap();
    store
        .insert_chunk(import, vec![memory("still importing", None, "2024-01-01")])
        .await
        .unwrap();
    // Process 1 always runs: as `imprint import` beside the server would.
    store
        .call(|c| Ok(c.execute("UPDATE imports SET pid = 1", [])?))
        .await
        .unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.pending_imports().await.unwrap(), [(import, 1)]);
    // Its owner then finishes it as usual.
    store.finish_import(import).await.unwrap();
    assert_eq!(store.all_memories().await.unwrap().len(), 1);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM imports").await, 0);
}

#[tokio::test]
async fn an_import_taken_back_refuses_its_next_chunk() {
    let store = mem();
    let import = store.begin_import().await.unwrap();
    store
        .insert_chunk(import, vec![memory("first", None, "2024-01-01")])
        .await
        .unwrap();
    store.take_back_import(import).await.unwrap();
    assert!(store.all_memories().await.unwrap().is_empty());
    let refused = store
        .insert_chunk(import, vec![memory("second", None, "2024-01-01")])
        .await
        .unwrap_err();
    assert!(matches!(refused, StoreError::Invalid(m) if m.contains("taken back")));
    assert!(store.finish_import(import).await.is_err());
    assert!(store.all_memories().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_phrase_is_held_only_as_its_words_side_by_side() {
    let store = mem();
    store
        .add_memory(memory(
            "File room key: blue tag, behind the office door",
            None,
            "2026-12-01T10:00:00.000Z",
        ))
        .await
        .unwrap();
    let held = |words: &[&str]| store.holds_phrase(words.iter().map(|w| w.to_string()).collect());
    assert!(held(&["file", "room"]).await.unwrap());
    // Case, stems and marks as the index reads them.
    assert!(held(&["FILE", "room?"]).await.unwrap());
    assert!(!held(&["room", "file"]).await.unwrap());
    assert!(!held(&["file", "key"]).await.unwrap());
    // FTS syntax is words like any other.
    assert!(!held(&["file", "room\" OR \"x"]).await.unwrap());
    assert!(!held(&["file"]).await.unwrap());
}
