//! The smaller points of keeping a person's data theirs: cross-site
//! requests refused before any handler, a size limit on every memory
//! field (and errors that quote little of what was sent), an import saved
//! with a byte order mark, an import kept whole though its client left
//! and one cut short by a stop gone at the next start, Imprint refused as
//! its own model, and a pause after a wrong token.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::*;

#[tokio::test]
async fn a_request_another_site_made_never_reaches_the_api() {
    let server = TestServer::start(vec![], &[]).await;
    for path in ["/api/connections", "/api/memories", "/api/chat/sessions"] {
        let response = server
            .http
            .get(format!("{}{path}", server.url))
            .header("Sec-Fetch-Site", "cross-site")
            .send()
            .await
            .unwrap();
        let (status, body) = read(response).await;
        assert_eq!(status, 403, "{path}: {body}");
    }
    // The dashboard's own requests pass.
    let response = server
        .http
        .get(format!("{}/api/memories", server.url))
        .header("Sec-Fetch-Site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn every_memory_field_is_bounded_and_errors_quote_little() {
    let server = TestServer::start(vec![], &[]).await;
    let big = "m".repeat(imprint::store::MAX_CONTENT_BYTES + 1);
    // Import: one memory over the limit imports nothing, and the 400
    // does not say it back.
    let body = format!("{{\"content\": \"fine\"}}\n{{\"content\": \"{big}\"}}\n");
    let (status, error) = server.send(server.import(body)).await;
    assert_eq!(status, 400, "{error}");
    let message = error["error"].as_str().unwrap();
    assert!(
        message.contains("line 2") && message.len() < 300,
        "{message}"
    );
    let (_, listed) = server.get("/api/memories").await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 0);
    // A value of the wrong type, quoted by the JSON reader: cut.
    let body = format!(
        "{{\"content\": \"a\", \"tags\": \"{}\"}}\n",
        "t".repeat(1_000_000)
    );
    let (status, error) = server.send(server.import(body)).await;
    assert_eq!(status, 400);
    assert!(error.to_string().len() < 300, "{}", error.to_string().len());
    // REST: a project name and tags past their limits.
    let long_project = "p".repeat(imprint::store::MAX_PROJECT_CHARS + 1);
    let (status, error) = server
        .post(
            "/api/memories",
            json!({"content": "x", "project": long_project}),
        )
        .await;
    assert_eq!(status, 400, "{error}");
    assert!(error.to_string().len() < 300);
    let many: Vec<String> = (0..=imprint::store::MAX_TAGS)
        .map(|i| format!("t{i}"))
        .collect();
    let (status, _) = server
        .post("/api/memories", json!({"content": "x", "tags": many}))
        .await;
    assert_eq!(status, 400);
    let (status, created) = server.post("/api/memories", json!({"content": "x"})).await;
    assert_eq!(status, 201);
    let id = created["id"].as_i64().unwrap();
    let long_tag = "g".repeat(imprint::store::MAX_TAG_CHARS + 1);
    let response = server
        .http
        .patch(format!("{}/api/memories/{id}", server.url))
        .json(&json!({"tags": [long_tag]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn a_rest_error_quotes_little_of_a_long_value_and_still_says_what_is_wrong() {
    let server = TestServer::start(vec![], &[]).await;
    let long = "t".repeat(60_000);
    // A value of the wrong type: serde quotes it.
    let (status, error) = server
        .post("/api/memories", json!({"content": "x", "tags": long}))
        .await;
    assert_eq!(status, 400);
    let message = error["error"].as_str().unwrap();
    assert!(message.len() < 300, "{} bytes", message.len());
    assert!(
        message.contains("invalid type") && message.contains("expected a sequence"),
        "{message}"
    );
    // A field no route has: serde names it.
    let (status, error) = server
        .post("/api/chat/sessions", json!({ long.as_str(): "a title" }))
        .await;
    assert_eq!(status, 400);
    let message = error["error"].as_str().unwrap();
    assert!(message.len() < 300, "{} bytes", message.len());
    assert!(
        message.contains("unknown field") && message.contains("title"),
        "{message}"
    );
    // A page's number that is not one.
    let sid = server.create_session().await;
    let (status, error) = server
        .get(&format!(
            "/api/chat/sessions/{sid}?limit={}",
            "9x".repeat(2_000)
        ))
        .await;
    assert_eq!(status, 400);
    let message = error["error"].as_str().unwrap();
    assert!(message.len() < 300, "{} bytes", message.len());
    assert!(
        message.starts_with("limit must be a whole number"),
        "{message}"
    );
}

#[tokio::test]
async fn an_import_saved_with_a_byte_order_mark_is_read() {
    let server = TestServer::start(vec![], &[]).await;
    let body = "\u{feff}{\"content\": \"tea with Anna\"}\r\n{\"content\": \"the door code\"}\r\n";
    let (status, imported) = server.send(server.import(body)).await;
    assert_eq!(status, 200, "{imported}");
    assert_eq!(imported["imported"], 2);
}

#[tokio::test]
async fn an_import_whose_client_leaves_part_way_is_still_kept_whole() {
    let server = TestServer::start(vec![], &[]).await;
    let store = server.running.engine.store.clone();
    let lines = 40 * imprint::import::IMPORT_CHUNK;
    let body: String = (0..lines)
        .map(|i| format!("{{\"content\": \"memory number {i}\"}}\n"))
        .collect();
    let first_chunk = store.memories_changed();
    let request = server.import(body);
    let client = tokio::spawn(async move { request.send().await });
    // Once the first chunk is committed, the client goes: its connection
    // closes and the server drops the request's handler.
    first_chunk.notified().await;
    client.abort();
    assert!(client.await.unwrap_err().is_cancelled());
    // One import at a time: this one is stored after the first settles.
    let (status, imported) = server
        .send(server.import("{\"content\": \"after it\"}\n"))
        .await;
    assert_eq!((status, imported["imported"].as_u64()), (200, Some(1)));
    let kept = store.all_memories().await.unwrap().len() - 1;
    assert_eq!(kept, lines, "all or nothing, and nothing was wrong with it");
    assert!(store.pending_imports().await.unwrap().is_empty());
}

#[tokio::test]
async fn an_import_cut_short_when_imprint_stopped_is_gone_at_the_next_start() {
    let data = tempfile::tempdir().unwrap();
    {
        // As a process that ended mid-import leaves the database.
        let store = imprint::store::Store::open(&data.path().join("imprint.sqlite3")).unwrap();
        let memory = |content: &str| imprint::store::NewMemory {
            content: content.into(),
            project: None,
            tags: vec![],
            created_at: None,
        };
        store.add_memory(memory("kept from before")).await.unwrap();
        let import = store.begin_import().await.unwrap();
        store
            .insert_chunk(import, vec![memory("half imported"), memory("also half")])
            .await
            .unwrap();
    }
    let standin = StandIn::start(vec![]).await;
    let server = TestServer::start_in(data, standin, &[], &[]).await;
    let (_, listed) = server.get("/api/memories").await;
    let contents: Vec<_> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["kept from before"]);
}

#[tokio::test]
async fn imprint_is_refused_as_its_own_model() {
    let standin = StandIn::start(vec![]).await;
    let server = TestServer::start_with(standin, &[], &[]).await;
    let own = format!("{}/v1", server.url);
    for path in ["/api/connections/current", "/api/connections/test"] {
        let choice = json!({"provider": "vllm", "base_url": own, "model": "m"});
        let (status, error) = if path.ends_with("current") {
            server.put(path, choice).await
        } else {
            server.post(path, choice).await
        };
        assert_eq!(status, 400, "{path}: {error}");
        assert!(
            error["error"].as_str().unwrap().contains("own address"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_wrong_token_is_answered_after_a_pause_and_a_padded_one_works() {
    let token = "a-long-enough-token-0123";
    let padded = format!("  {token}\n");
    let server = TestServer::start(vec![], &["--token", &padded]).await;
    let ask = |auth: String| {
        server
            .http
            .get(format!("{}/api/chat/status", server.url))
            .header("Authorization", auth)
            .send()
    };
    let started = Instant::now();
    let refused = ask("Bearer wrong".into()).await.unwrap();
    assert_eq!(refused.status(), 401);
    assert!(started.elapsed() >= imprint::http::guard::FAILED_TOKEN_PAUSE);
    // Guesses made at once are answered one after another.
    let started = Instant::now();
    let guesses = futures::future::join_all((0..3).map(|i| ask(format!("Bearer guess{i}")))).await;
    assert!(guesses.iter().all(|r| r.as_ref().unwrap().status() == 401));
    assert!(started.elapsed() >= 3 * imprint::http::guard::FAILED_TOKEN_PAUSE);
    // The token is read trimmed.
    let started = Instant::now();
    let answered = ask(format!("Bearer {token}")).await.unwrap();
    assert_eq!(answered.status(), 200);
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[tokio::test]
async fn a_zone_in_a_reminder_time_is_applied_or_refused_by_name() {
    use chrono::TimeZone;
    let server = TestServer::start(vec![], &[]).await;
    // Wednesday 2030-01-09, noon UTC (winter: Paris is UTC+1, New York UTC-5).
    let noon = chrono::Utc.with_ymd_and_hms(2030, 1, 9, 12, 0, 0).unwrap();
    server.set_now(noon.with_timezone(&chrono::Local));
    let due = |reminder: &serde_json::Value| {
        chrono::DateTime::parse_from_rfc3339(reminder["due_at"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    for (at, utc) in [
        ("tomorrow at 9 EST", "2030-01-10T14:00:00Z"),
        ("tomorrow 9:00 +05:00", "2030-01-10T04:00:00Z"),
        ("tomorrow at 9 UTC+5", "2030-01-10T04:00:00Z"),
        ("tomorrow at 9 GMT+2", "2030-01-10T07:00:00Z"),
        ("tomorrow at 9 CET", "2030-01-10T08:00:00Z"),
        ("tomorrow at 9am PST", "2030-01-10T17:00:00Z"),
        ("tomorrow at 9 pacific time", "2030-01-10T17:00:00Z"),
        ("2030-01-10T09:00 Europe/Paris", "2030-01-10T08:00:00Z"),
        // Abbreviations in any case, from the zone database, cities' times
        // and "in" before a zone.
        ("tomorrow at 9 est", "2030-01-10T14:00:00Z"),
        ("tomorrow at 9 pst", "2030-01-10T17:00:00Z"),
        ("tomorrow at 9 WIB", "2030-01-10T02:00:00Z"),
        ("tomorrow at 9 Paris time", "2030-01-10T08:00:00Z"),
        ("tomorrow at 9 London time", "2030-01-10T09:00:00Z"),
        ("tomorrow at 9 in EST", "2030-01-10T14:00:00Z"),
    ] {
        let (status, reminder) = server
            .post("/api/reminders", json!({"text": "call Anna", "at": at}))
            .await;
        assert_eq!(status, 201, "{at}: {reminder}");
        assert_eq!(
            due(&reminder).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            utc,
            "{at}"
        );
    }
    for (at, name) in [
        ("tomorrow at 9 IST", "IST"),
        ("tomorrow at 9 CST", "CST"),
        ("tomorrow at 9 ist", "IST"),
        ("tomorrow at 9 BRT", "BRT"),
    ] {
        let (status, error) = server
            .post("/api/reminders", json!({"text": "call Anna", "at": at}))
            .await;
        assert_eq!(status, 400, "{at}: {error}");
        assert!(error["error"].as_str().unwrap().contains(name), "{error}");
    }
}
