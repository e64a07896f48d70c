//! Sessions, reminders, errors and the guard, through real HTTP.

mod support;

use app::protocol::tool_names::REMIND;
use serde_json::{json, Value};
use support::*;

#[tokio::test]
async fn sessions_are_created_listed_renamed_and_deleted() {
    let server = TestServer::start(vec![], &[]).await;
    let (status, created) = server
        .post("/api/chat/sessions", json!({"title": "Plans"}))
        .await;
    assert_eq!(status, 201);
    assert_eq!(
        (
            created["title"].as_str(),
            created["message_count"].as_u64(),
            created["waiting"].as_bool()
        ),
        (Some("Plans"), Some(0), Some(false))
    );
    let untitled = server.create_session().await;
    let response = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "a body is optional");

    let (_, list) = server.get("/api/chat/sessions").await;
    let ids: Vec<_> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[1], untitled, "newest first");
    assert_eq!(list["sessions"][1]["title"], "New chat");

    let sid = created["id"].as_str().unwrap();
    let rename = server
        .http
        .patch(format!("{}/api/chat/sessions/{sid}", server.url))
        .json(&json!({"title": "Trips"}));
    let (status, renamed) = server.send(rename).await;
    assert_eq!((status, renamed["title"].as_str()), (200, Some("Trips")));
    let blank = server
        .http
        .patch(format!("{}/api/chat/sessions/{sid}", server.url))
        .json(&json!({"title": "  "}));
    assert_eq!(server.send(blank).await.0, 400);
    let unknown = server
        .http
        .patch(format!("{}/api/chat/sessions/nope", server.url))
        .json(&json!({"title": "x"}));
    assert_eq!(server.send(unknown).await.0, 404);

    let (status, body) = server
        .send(
            server
                .http
                .delete(format!("{}/api/chat/sessions/{sid}", server.url)),
        )
        .await;
    assert_eq!((status, body), (204, serde_json::Value::Null));
    assert_eq!(
        server.get(&format!("/api/chat/sessions/{sid}")).await.0,
        404
    );
    assert_eq!(
        server
            .send(
                server
                    .http
                    .delete(format!("{}/api/chat/sessions/{sid}", server.url))
            )
            .await
            .0,
        404
    );
}

#[tokio::test]
async fn the_first_message_titles_the_session() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    let long = format!("{}\nand more", "é".repeat(80));
    server.converse(&sid, &long).await;
    let session = server.session(&sid).await;
    assert_eq!(session["title"].as_str().unwrap().chars().count(), 60);
    assert!(session["title"].as_str().unwrap().chars().all(|c| c == 'é'));
}

#[tokio::test]
async fn bad_input_gets_a_clear_json_error_and_the_right_status() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    let path = format!("/api/chat/sessions/{sid}/messages");
    let (status, body) = server.post(&path, json!({"message": "   "})).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("the message is empty"))
    );
    let (status, body) = server.post(&path, json!({"text": "wrong field"})).await;
    assert_eq!(status, 400, "not the route's shape is a 400 (SPEC §4)");
    assert!(
        body["error"].as_str().unwrap().contains("message"),
        "{body}"
    );
    let not_json = server
        .http
        .post(format!("{}{path}", server.url))
        .header("content-type", "application/json")
        .body("{oops");
    let (status, body) = server.send(not_json).await;
    assert_eq!(status, 400);
    assert!(body["error"].is_string());
    let plain = server.http.post(format!("{}{path}", server.url)).body("hi");
    assert_eq!(server.send(plain).await.0, 415);
    let (status, _) = server
        .post("/api/chat/sessions/nope/messages", json!({"message": "hi"}))
        .await;
    assert_eq!(status, 404);
    let (status, body) = server.get("/api/no/such/route").await;
    assert_eq!((status, body["error"].is_string()), (404, true));
    let wrong_method = server.http.put(format!("{}/api/chat/sessions", server.url));
    let (status, body) = server.send(wrong_method).await;
    assert_eq!((status, body["error"].is_string()), (405, true));
    assert_eq!(server.get("/api/chat/sessions/nope/reply").await.0, 404);
    let (status, _) = server.post("/api/chat/sessions/nope/stop", json!({})).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn bodies_over_64_kib_are_refused_with_413() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    let big = "x".repeat(70 * 1024);
    let (status, body) = server
        .post(
            &format!("/api/chat/sessions/{sid}/messages"),
            json!({"message": big}),
        )
        .await;
    assert_eq!(status, 413);
    assert!(body["error"].as_str().unwrap().contains("64 KiB"));
    let chunked = futures::stream::iter(vec![Ok::<_, std::io::Error>(bytes::Bytes::from(
        format!("{{\"message\": \"{big}\"}}"),
    ))]);
    let request = server
        .http
        .post(format!("{}/api/chat/sessions/{sid}/messages", server.url))
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(chunked));
    let (status, body) = server.send(request).await;
    assert_eq!(status, 413, "also without a Content-Length: {body}");
    assert_eq!(
        server.session(&sid).await["messages"]
            .as_array()
            .unwrap()
            .len(),
        0,
        "nothing was stored"
    );
}

#[tokio::test]
async fn foreign_origins_and_host_names_are_refused() {
    let server = TestServer::start(vec![], &[]).await;
    let foreign = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .header("Origin", "https://evil.example");
    let (status, body) = server.send(foreign).await;
    assert_eq!(status, 403);
    assert!(body["error"].as_str().unwrap().contains("other sites"));
    let own = server
        .http
        .post(format!("{}/api/chat/sessions", server.url))
        .header("Origin", server.url.clone());
    assert_eq!(server.send(own).await.0, 201);
    let rebinding = server
        .http
        .get(format!("{}/api/chat/sessions", server.url))
        .header("Host", "attacker.example");
    assert_eq!(server.send(rebinding).await.0, 403);
    let reading = server
        .http
        .get(format!("{}/api/chat/sessions", server.url))
        .header("Origin", "https://evil.example");
    assert_eq!(
        server.send(reading).await.0,
        403,
        "a browser request from another origin is refused, reading too"
    );
}

#[tokio::test]
async fn a_configured_token_is_required() {
    let server = TestServer::start(vec![], &["--token", "letmein"]).await;
    let (status, body) = server.get("/api/chat/sessions").await;
    assert_eq!(status, 401);
    assert!(body["error"].as_str().unwrap().contains("token"));
    let bearer = server
        .http
        .get(format!("{}/api/chat/sessions", server.url))
        .bearer_auth("letmein");
    assert_eq!(server.send(bearer).await.0, 200);
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = no_redirects
        .get(format!("{}/?token=letmein", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303, "the page reloads without the token");
    assert_eq!(response.headers()["location"], "/");
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(cookie.starts_with("imprint_token=letmein") && cookie.contains("HttpOnly"));
}

#[tokio::test]
async fn server_functions_share_the_engine_and_carry_statuses() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    // Server functions take JSON bodies.
    let call = |name: &str, fields: &[(&str, &str)]| {
        let body: serde_json::Map<String, Value> = fields
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        server
            .http
            .post(format!("{}/api/dashboard/{name}", server.url))
            .json(&body)
    };
    let (status, body) = server.send(call("list_sessions", &[])).await;
    assert_eq!(status, 200);
    assert_eq!(body["sessions"][0]["id"], sid.as_str());
    let unknown = server
        .http
        .post(format!("{}/api/dashboard/get_session_page", server.url))
        .json(&json!({"sid": "nope", "page": {"limit": 10}}));
    let (status, body) = server.send(unknown).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("no such session"))
    );
    let (status, _) = server
        .send(call(
            "send_message",
            &[("sid", sid.as_str()), ("message", " ")],
        ))
        .await;
    assert_eq!(status, 400);
    let (status, _) = server.send(call("get_session_page", &[])).await;
    assert_eq!(status, 400, "a missing argument is the caller's mistake");
}

#[tokio::test]
async fn a_reminder_fires_on_the_dashboard_stream() {
    let server = TestServer::start(Vec::new(), &[]).await;
    let mut dashboard = server.dashboard_events().await;
    // Due 800 ms from now, counted once the server is up: a slow start
    // cannot make it due before it is set.
    let due = (chrono::Utc::now() + chrono::Duration::milliseconds(800)).to_rfc3339();
    server.standin.add(scenario(
        "remind me",
        vec![
            Turn::call(REMIND, json!({"text": "stretch", "at": due})),
            Turn::text("Set."),
        ],
    ));
    let sid = server.create_session().await;
    // The time is the user's own (an ISO date-time in their words).
    server
        .converse(&sid, &format!("remind me at {due} to stretch"))
        .await;
    let (_, list) = server.get("/api/reminders").await;
    assert_eq!(list["reminders"][0]["text"], "stretch");
    assert_eq!(list["reminders"][0]["session_id"], sid.as_str());
    let fired = dashboard.until("reminder_due").await;
    assert_eq!(fired.last().unwrap()["text"], "stretch");
    let (_, list) = server.get("/api/reminders").await;
    assert_eq!(list["reminders"][0]["done"], true);
}

/// The seqs of a session read's messages.
fn seqs(session: &Value) -> Vec<i64> {
    session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn a_session_is_read_a_page_at_a_time_back_to_its_start() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    for n in 1..=13 {
        server.converse(&sid, &format!("note {n}")).await;
    }

    // Without a page, the whole session (SPEC §4), and no `older`.
    let whole = server.session(&sid).await;
    assert_eq!(seqs(&whole), (1..=26).collect::<Vec<_>>());
    assert!(whole.get("older").is_none());

    let (status, newest) = server
        .get(&format!("/api/chat/sessions/{sid}?limit=10"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(seqs(&newest), (17..=26).collect::<Vec<_>>());
    assert_eq!(newest["older"], 16);
    assert_eq!(newest["title"], whole["title"]);
    assert_eq!(newest["messages"][9], whole["messages"][25]);
    assert!(newest["messages"][9]["html"].is_string());

    // Paging back while a new exchange is added: nothing lost, nothing
    // twice, and the new messages only in the newest page.
    let mut read = seqs(&newest);
    let mut before = read[0];
    let mut added = false;
    loop {
        let (status, page) = server
            .get(&format!("/api/chat/sessions/{sid}?before={before}&limit=7"))
            .await;
        assert_eq!(status, 200);
        let page_seqs = seqs(&page);
        let remaining = page["older"].as_u64().unwrap();
        if page_seqs.is_empty() {
            assert_eq!(remaining, 0);
            break;
        }
        assert_eq!(remaining, page_seqs[0] as u64 - 1);
        assert_eq!(
            page["messages"][0]["content"],
            whole["messages"][page_seqs[0] as usize - 1]["content"]
        );
        read.splice(0..0, page_seqs.iter().copied());
        before = page_seqs[0];
        if !added {
            server.converse(&sid, "a new note meanwhile").await;
            added = true;
        }
        if remaining == 0 {
            break;
        }
    }
    assert_eq!(read, (1..=26).collect::<Vec<_>>());
    let (_, newest) = server
        .get(&format!("/api/chat/sessions/{sid}?limit=3"))
        .await;
    assert_eq!(seqs(&newest), vec![26, 27, 28]);
    assert_eq!(newest["messages"][1]["content"], "a new note meanwhile");

    // `before` alone pages with the default size.
    let (status, page) = server
        .get(&format!("/api/chat/sessions/{sid}?before=5"))
        .await;
    assert_eq!((status, seqs(&page)), (200, vec![1, 2, 3, 4]));
    assert_eq!(page["older"], 0);

    // The dashboard's server function is the same read.
    let (status, through_fn) = server
        .send(
            server
                .http
                .post(format!("{}/api/dashboard/get_session_page", server.url))
                .json(&json!({"sid": sid, "page": {"before": 17, "limit": 10}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(seqs(&through_fn), (7..=16).collect::<Vec<_>>());
    assert_eq!(through_fn["older"], 6);
}

#[tokio::test]
async fn a_bad_page_is_a_400_and_an_unknown_session_a_404() {
    let server = TestServer::start(vec![], &[]).await;
    let sid = server.create_session().await;
    server.converse(&sid, "hello").await;
    for query in [
        "before=abc",
        "before=0",
        "before=-3",
        "before=1.5",
        "limit=0",
        "limit=501",
        "limit=-1",
        "limit=ten",
        "before=2&limit=",
    ] {
        let (status, body) = server
            .get(&format!("/api/chat/sessions/{sid}?{query}"))
            .await;
        assert_eq!(status, 400, "{query}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{query}: {body}"
        );
    }
    let (status, page) = server
        .get(&format!("/api/chat/sessions/{sid}?limit=500"))
        .await;
    assert_eq!((status, seqs(&page)), (200, vec![1, 2]));
    let (status, body) = server
        .get("/api/chat/sessions/no-such-session?before=10&limit=5")
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("no such session"))
    );
    let bad_fn = server
        .http
        .post(format!("{}/api/dashboard/get_session_page", server.url))
        .json(&json!({"sid": sid, "page": {"limit": 0}}));
    assert_eq!(server.send(bad_fn).await.0, 400);
}
