//! `/api/reminders` through real HTTP (SPEC §4): created with the
//! grounding grammar or ISO 8601, listed upcoming or done, edited, deleted,
//! repeating ones that fire and come back, and their errors.

mod support;

use chrono::{Duration, SecondsFormat, Utc};
use serde_json::{json, Value};
use support::*;

fn patch(server: &TestServer, id: impl std::fmt::Display, body: Value) -> reqwest::RequestBuilder {
    server
        .http
        .patch(format!("{}/api/reminders/{id}", server.url))
        .json(&body)
}

fn delete(server: &TestServer, id: impl std::fmt::Display) -> reqwest::RequestBuilder {
    server
        .http
        .delete(format!("{}/api/reminders/{id}", server.url))
}

fn texts(list: &Value) -> Vec<String> {
    list["reminders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect()
}

/// The UTC time stored for a local wall-clock time on `now()`'s calendar.
fn local_at(day: u32, hour: u32) -> String {
    use chrono::TimeZone;
    chrono::Local
        .with_ymd_and_hms(2030, 6, day, hour, 0, 0)
        .earliest()
        .unwrap()
        .with_timezone(&Utc)
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[tokio::test]
async fn a_reminder_is_created_with_the_grounding_grammar_and_listed_by_status() {
    let server = TestServer::start(vec![], &[]).await;
    server.set_now(now()); // Monday 2030-06-03 10:40
    let (status, created) = server
        .post(
            "/api/reminders",
            json!({"text": "call Anna", "at": "tomorrow at 9"}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        created,
        json!({"id": created["id"], "text": "call Anna", "due_at": local_at(4, 9),
               "done": false, "session_id": null, "repeat": null})
    );
    let (status, weekly) = server
        .post(
            "/api/reminders",
            json!({"text": "team sync", "at": "2030-06-05T10:00", "repeat": "weekly"}),
        )
        .await;
    assert_eq!((status, &weekly["repeat"]), (201, &json!("weekly")));
    assert_eq!(weekly["due_at"], local_at(5, 10));

    let id = created["id"].as_i64().unwrap();
    let (status, done) = server.send(patch(&server, id, json!({"done": true}))).await;
    assert_eq!((status, &done["done"]), (200, &json!(true)));
    let (_, upcoming) = server.get("/api/reminders?status=upcoming").await;
    assert_eq!(texts(&upcoming), ["team sync"]);
    let (_, finished) = server.get("/api/reminders?status=done").await;
    assert_eq!(texts(&finished), ["call Anna"]);
    let (_, all) = server.get("/api/reminders").await;
    assert_eq!(texts(&all).len(), 2);
}

#[tokio::test]
async fn a_reminder_is_edited_and_deleted() {
    let server = TestServer::start(vec![], &[]).await;
    server.set_now(now());
    let (_, created) = server
        .post(
            "/api/reminders",
            json!({"text": "stretch", "at": "in 2 hours"}),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    server.send(patch(&server, id, json!({"done": true}))).await;
    let (status, edited) = server
        .send(patch(
            &server,
            id,
            json!({"text": "stretch well", "at": "Friday at 18:00", "repeat": "weekdays"}),
        ))
        .await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(
        (
            &edited["text"],
            &edited["due_at"],
            &edited["repeat"],
            &edited["done"]
        ),
        (
            &json!("stretch well"),
            &json!(local_at(7, 18)),
            &json!("weekdays"),
            &json!(false)
        ),
        "a new time makes it upcoming again"
    );
    let (_, once) = server
        .send(patch(&server, id, json!({"repeat": null})))
        .await;
    assert_eq!(
        (&once["repeat"], &once["text"]),
        (&Value::Null, &json!("stretch well"))
    );

    let (status, body) = server.send(delete(&server, id)).await;
    assert_eq!((status, body), (204, Value::Null));
    let (_, all) = server.get("/api/reminders").await;
    assert!(texts(&all).is_empty());
}

#[tokio::test]
async fn bad_input_is_refused_with_its_status() {
    let server = TestServer::start(vec![], &[]).await;
    server.set_now(now());
    for (body, why) in [
        (
            json!({"text": "x", "at": "whenever"}),
            "a time that can't be read",
        ),
        (json!({"text": "x", "at": ""}), "no time"),
        (
            json!({"text": "x", "at": "2020-01-01T09:00"}),
            "a time gone",
        ),
        (json!({"text": "  ", "at": "tomorrow at 9"}), "empty text"),
        (
            json!({"text": "x", "at": "tomorrow", "repeat": "hourly"}),
            "no such repeat",
        ),
        (json!({"text": "x"}), "no time field"),
    ] {
        let (status, error) = server.post("/api/reminders", body).await;
        assert_eq!(status, 400, "{why}: {error}");
        assert!(error["error"].is_string());
    }
    let (_, created) = server
        .post(
            "/api/reminders",
            json!({"text": "x", "at": "tomorrow at 9"}),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    let (status, error) = server
        .send(patch(&server, id, json!({"at": "someday maybe"})))
        .await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(
        server.send(patch(&server, id, json!({"text": ""}))).await.0,
        400
    );
    for unknown in ["424242", "nope"] {
        assert_eq!(
            server
                .send(patch(&server, unknown, json!({"done": true})))
                .await
                .0,
            404
        );
        assert_eq!(server.send(delete(&server, unknown)).await.0, 404);
    }
    assert_eq!(server.get("/api/reminders?status=later").await.0, 400);
    let (_, all) = server.get("/api/reminders").await;
    assert_eq!(all["reminders"][0]["due_at"], local_at(4, 9), "unchanged");
    assert_eq!(texts(&all), ["x"]);
}

#[tokio::test]
async fn a_repeating_reminder_fires_and_comes_back_for_its_next_time() {
    let server = TestServer::start(vec![], &[]).await;
    let mut dashboard = server.dashboard_events().await;
    let due = Utc::now() + Duration::milliseconds(800);
    let at = due.to_rfc3339_opts(SecondsFormat::Millis, true);
    let (status, created) = server
        .post(
            "/api/reminders",
            json!({"text": "drink water", "at": at, "repeat": "daily"}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let fired = dashboard.until("reminder_due").await;
    assert_eq!(fired.last().unwrap()["text"], "drink water");
    let (_, upcoming) = server.get("/api/reminders?status=upcoming").await;
    let reminder = &upcoming["reminders"][0];
    assert_eq!(reminder["id"], created["id"]);
    assert_eq!(reminder["done"], false, "it stays upcoming");
    let next = chrono::DateTime::parse_from_rfc3339(reminder["due_at"].as_str().unwrap()).unwrap();
    let gap = next.with_timezone(&Utc)
        - chrono::DateTime::parse_from_rfc3339(&at)
            .unwrap()
            .with_timezone(&Utc);
    // A day later on the wall clock: 23 to 25 hours across a change of
    // daylight saving time.
    assert!(
        gap >= Duration::hours(23) && gap <= Duration::hours(25),
        "next time {next} is a day after {at}"
    );
}

#[tokio::test]
async fn a_chat_reminder_links_to_its_chat_and_its_tool_result_to_the_row() {
    let due = "2099-05-01T09:30";
    let server = TestServer::start(
        vec![scenario(
            "remind me",
            vec![
                Turn::call("remind", json!({"text": "stretch", "at": due})),
                Turn::text("Done."),
            ],
        )],
        &[],
    )
    .await;
    let sid = server.create_session().await;
    let events = server
        .converse(&sid, &format!("remind me at {due} to stretch"))
        .await;
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["name"] == "remind")
        .expect("a remind result");
    let (_, list) = server.get("/api/reminders?status=upcoming").await;
    assert_eq!(result["row_id"], list["reminders"][0]["id"]);
    assert_eq!(list["reminders"][0]["session_id"], sid.as_str());
}
