//! Input a hostile page or a careless script can send: each fault here was
//! found by a review of the release binary, and each test failed before its
//! fix.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::TestServer;

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn patch(server: &TestServer, path: &str, body: Value) -> (u16, Value) {
    let request = server
        .http
        .patch(format!("{}{path}", server.url))
        .json(&body);
    server.send(request).await
}

#[tokio::test]
async fn a_token_redirect_never_leaves_this_server() {
    let server = TestServer::start(vec![], &["--token", "letmein"]).await;
    let client = no_redirects();
    for (path, expected) in [
        ("//evil.example/", "/evil.example/"),
        ("/\\evil.example/", "/evil.example/"),
        ("///evil.example/x", "/evil.example/x"),
        ("/chat", "/chat"),
    ] {
        let response = client
            .get(format!("{}{path}?token=letmein", server.url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 303, "{path}");
        let location = response.headers()["location"].to_str().unwrap();
        assert_eq!(location, expected, "{path}");
        assert!(!location.starts_with("//") && !location.starts_with("/\\"));
    }
}

#[tokio::test]
async fn rest_bodies_refuse_unknown_fields_by_name_and_other_shapes() {
    let server = TestServer::start(vec![], &[]).await;
    let (status, body) = server
        .post("/api/memories", json!({"content": "x", "bogus": 1}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("bogus"), "{body}");
    let (status, _) = server
        .post("/api/memories", json!({"content": "tea"}))
        .await;
    assert_eq!(status, 201);
    let (status, body) = server
        .post(
            "/api/reminders",
            json!({"text": "x", "at": "tomorrow at 9", "when": 1}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("when"), "{body}");
    let sid = server.create_session().await;
    let (status, body) = server
        .post(
            &format!("/api/chat/sessions/{sid}/messages"),
            json!({"message": "hi", "stream": true}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = server
        .post("/api/chat/sessions", json!({"title": "x", "owner": "y"}))
        .await;
    assert_eq!(status, 400, "{body}");

    let (_, memory) = server
        .post("/api/memories", json!({"content": "soup"}))
        .await;
    let id = memory["id"].as_i64().unwrap();
    for shape in [json!([]), json!("text"), json!(3), json!(null)] {
        let (status, body) = patch(&server, &format!("/api/memories/{id}"), shape.clone()).await;
        assert_eq!(status, 400, "{shape} → {body}");
        assert!(
            body["error"].as_str().unwrap().contains("JSON object"),
            "{body}"
        );
    }
    let (status, body) = patch(
        &server,
        &format!("/api/memories/{id}"),
        json!({"colour": "red"}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let (_, listed) = server.get("/api/memories").await;
    let kept = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .cloned();
    assert_eq!(kept.unwrap()["content"], "soup", "nothing changed");
}

#[tokio::test]
async fn times_past_the_year_9999_or_in_an_unknown_or_ambiguous_zone_are_refused() {
    let server = TestServer::start(vec![], &[]).await;
    for at in [
        "+10000-01-01T09:00Z",
        "in 99999999h",
        "in 2147483647weeks",
        "9999-12-31T23:00-05:00",
        "2030-01-01T09:00 Mars/Olympus",
        "2030-01-01T09:00 Europe/Atlantis",
        "2030-01-01T09:00 IST",
    ] {
        let (status, body) = server
            .post("/api/reminders", json!({"text": "x", "at": at}))
            .await;
        assert_eq!(status, 400, "{at} → {body}");
        assert!(body["error"].is_string());
    }
    let (_, reminders) = server.get("/api/reminders").await;
    assert_eq!(reminders["reminders"], json!([]), "nothing was stored");

    let (status, body) = server
        .post(
            "/api/memories",
            json!({"content": "x", "created_at": "+10000-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 400, "{body}");

    let (_, reminder) = server
        .post("/api/reminders", json!({"text": "x", "at": "in 2 hours"}))
        .await;
    let id = reminder["id"].as_i64().unwrap();
    let (status, body) = patch(
        &server,
        &format!("/api/reminders/{id}"),
        json!({"at": "in 99999999h"}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let (status, _) = patch(
        &server,
        &format!("/api/reminders/{id}"),
        json!({"at": "in 3 hours"}),
    )
    .await;
    assert_eq!(status, 200, "a real time still moves it");
}

#[tokio::test]
async fn a_memory_id_outside_what_the_page_can_hold_is_refused() {
    let server = TestServer::start(vec![], &[]).await;
    for id in [json!(0), json!(-4), json!(i64::MAX), json!(1u64 << 53)] {
        let (status, body) = server
            .post("/api/memories", json!({"content": "x", "id": id}))
            .await;
        assert_eq!(status, 400, "{id} → {body}");
    }
    let (status, body) = server
        .post(
            "/api/memories",
            json!({"content": "x", "id": (1u64 << 53) - 1}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    // The next new memory still gets an id the page can hold exactly.
    let (_, next) = server.post("/api/memories", json!({"content": "y"})).await;
    assert_eq!(next["id"].as_i64(), Some(1 << 53), "{next}");
}

#[tokio::test]
async fn a_reminder_row_that_cannot_be_read_does_not_stop_the_others() {
    let server = TestServer::start(vec![], &[]).await;
    server
        .running
        .engine
        .store
        .call(|conn| {
            conn.execute(
                "INSERT INTO reminders (text, due_at, created_at, done)
                 VALUES ('from the far future', '+13434-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 0)",
                [],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let mut events = server.dashboard_events().await;
    let due = chrono::Utc::now() + chrono::Duration::seconds(2);
    let (status, soon) = server
        .post(
            "/api/reminders",
            json!({"text": "stretch", "at": due.to_rfc3339()}),
        )
        .await;
    assert_eq!(status, 201, "{soon}");
    let fired = tokio::time::timeout(Duration::from_secs(30), events.until("reminder_due"))
        .await
        .expect("the readable reminder fires");
    let last = fired.last().unwrap();
    assert_eq!(last["text"], "stretch", "{last}");

    let (status, listed) = server.get("/api/reminders?status=upcoming").await;
    assert_eq!(status, 200);
    assert_eq!(listed["reminders"], json!([]));
    let unreadable = listed["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1, "{listed}");
    assert!(unreadable[0]["problem"]
        .as_str()
        .unwrap()
        .contains("+13434"));
    let bad = unreadable[0]["id"].as_i64().unwrap();
    let (status, body) = patch(
        &server,
        &format!("/api/reminders/{bad}"),
        json!({"text": "y"}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("cannot be read"),
        "{body}"
    );
    let deleted = server
        .http
        .delete(format!("{}/api/reminders/{bad}", server.url));
    assert_eq!(server.send(deleted).await.0, 204);
}

/// Opens a connection that sends half a request's headers and no more.
async fn half_a_request(addr: std::net::SocketAddr) -> Option<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt;
    let connect = tokio::net::TcpStream::connect(addr);
    let mut stream = tokio::time::timeout(Duration::from_secs(5), connect)
        .await
        .ok()?
        .ok()?;
    stream
        .write_all(b"GET /api/chat/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .ok()?;
    Some(stream)
}

#[tokio::test]
async fn slow_clients_holding_half_sent_headers_cannot_lock_out_a_real_request() {
    use tokio::io::AsyncReadExt;
    let server = TestServer::start(vec![], &[]).await;
    let addr = server.running.addr;
    let mut slow = Vec::new();
    for _ in 0..1100 {
        if let Some(stream) = half_a_request(addr).await {
            slow.push(stream);
        }
    }
    assert!(slow.len() > imprint::serve::sockets::MAX_OPEN);
    // Answered once the slow ones' header deadline frees places (the
    // bound here is generous: the point is that it is answered at all).
    let real = tokio::time::timeout(Duration::from_secs(60), server.get("/api/chat/sessions"))
        .await
        .expect("a real request is answered");
    assert_eq!(real.0, 200);
    // And the server has closed the slow connections it took.
    let mut first = slow.swap_remove(0);
    let mut buf = [0u8; 256];
    let read = tokio::time::timeout(Duration::from_secs(60), first.read(&mut buf))
        .await
        .expect("the server ends a connection that never finishes its headers");
    assert!(matches!(read, Ok(0) | Err(_)) || buf.starts_with(b"HTTP/1.1 408"));
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = TestServer::start(vec![], &[]).await;
    let mut stream = tokio::net::TcpStream::connect(server.running.addr)
        .await
        .unwrap();
    stream
        .write_all(b"GET /api/chat/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    // The answer, then nothing more: the server ends the idle connection.
    let ended = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "an idle connection is not held open");
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

fn lines(count: usize, pad: usize) -> String {
    (0..count)
        .map(|i| {
            json!({"content": format!("note {i} {}", "x".repeat(pad)), "project": "Bulk"})
                .to_string()
                + "\n"
        })
        .collect()
}

#[tokio::test]
async fn an_import_far_over_64_kib_goes_in_whole_and_its_export_streams_back() {
    let server = TestServer::start(vec![], &[]).await;
    let file = lines(20_000, 200);
    assert!(file.len() > 4 << 20);
    let (status, body) = server.send(server.import(file)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["imported"], 20_000);

    let response = server.export().send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers().get("content-length").is_none(),
        "written as it is read, not built whole first"
    );
    let exported = response.text().await.unwrap();
    let contents: Vec<String> = exported
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(contents.len(), 20_000);
    assert_eq!(contents[0], format!("note 0 {}", "x".repeat(200)));
    assert_eq!(contents[19_999], format!("note 19999 {}", "x".repeat(200)));

    // Its own export imports into a fresh server.
    let fresh = TestServer::start(vec![], &[]).await;
    let (status, body) = fresh.send(fresh.import(exported)).await;
    assert_eq!((status, body["imported"].clone()), (200, json!(20_000)));
}

#[tokio::test]
async fn a_bad_line_deep_in_a_large_import_is_named_and_nothing_is_imported() {
    let server = TestServer::start(vec![], &[]).await;
    let mut file = lines(5_000, 100);
    file.push_str("{\"content\": \"late\", \"created_at\": \"+10000-01-01\"}\n");
    file.push_str(&lines(10, 10));
    let (status, body) = server.send(server.import(file)).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("line 5001"),
        "{body}"
    );
    let (_, listed) = server.get("/api/memories").await;
    assert_eq!(listed["memories"], json!([]), "all or nothing");

    // Past 64 MiB: refused, also when sent without a length.
    let (status, body) = server.send(server.import(vec![b' '; (64 << 20) + 1])).await;
    assert_eq!(status, 413, "{body}");
    let chunks =
        futures::stream::iter((0..65).map(|_| Ok::<_, std::io::Error>(vec![b' '; 1 << 20])));
    let (status, body) = server
        .send(server.import(reqwest::Body::wrap_stream(chunks)))
        .await;
    assert_eq!(status, 413, "{body}");
    // Other routes keep their 64 KiB.
    let (status, _) = server
        .post("/api/memories", json!({"content": "x".repeat(70 * 1024)}))
        .await;
    assert_eq!(status, 413);
}
